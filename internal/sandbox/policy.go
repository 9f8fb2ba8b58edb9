package sandbox

import (
	"fmt"
	"path/filepath"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// Sandbox modes, as in the sandboxMode policy of the protocol.
const (
	ReadOnly         = policy.ReadOnly
	WorkspaceWrite   = policy.WorkspaceWrite
	DangerFullAccess = policy.DangerFullAccess
)

// ProtectedNames are the entries kept read-only at the top of every project
// root (the project root and the extra writable roots), whether they exist
// or not.
var ProtectedNames = policy.ProtectedNames

// Policy says what a sandboxed command may do. What is writable and what
// is protected is the session's [policy.Boundary], rebuilt in the helper
// from Mode, Root, WritableRoots and the temporary directories left
// writable; Cwd only says where the command runs.
type Policy struct {
	// Mode is ReadOnly, WorkspaceWrite (the default when empty) or
	// DangerFullAccess (no sandbox at all).
	Mode policy.SandboxMode
	// Root is the absolute project root: writable in workspace-write mode,
	// its .git, .agents and .agent-ls protected. Empty means Cwd.
	Root string
	// Cwd is the absolute directory the command runs in. It chooses where
	// the command runs, never what is writable.
	Cwd string
	// WritableRoots are extra absolute directories writable in
	// workspace-write mode; relative ones are taken relative to Root.
	WritableRoots []string
	// Network lets the command open network sockets.
	Network bool
	// Proxy, with the network off, gives a workspace-write command that
	// runs in its session's loopback network an endpoint of agent-ls's
	// network proxy there, and the variables that point programs at it
	// (the network setting "ask"; see ProxyServer). Ignored otherwise.
	Proxy ProxyServer
	// NoNamespace skips the user and mount namespace even where the kernel
	// offers it: Landlock and seccomp only, protected paths unenforced.
	NoNamespace bool
	// CacheRoot is the writable directory holding the command's toolchain
	// caches in workspace-write mode (see CacheEnv); empty means
	// DefaultCacheRoot of the command's environment. An explicit root
	// that cannot be used (not a directory of this user's alone, holding
	// the user's own caches or a protected path) fails the command.
	CacheRoot string
	// ExcludeTmpdirEnvVar keeps the $TMPDIR of the command's environment
	// out of the writable roots in workspace-write mode, and
	// ExcludeSlashTmp keeps /tmp out (exclude_tmpdir_env_var and
	// exclude_slash_tmp; see policy.WritableTempRoots).
	ExcludeTmpdirEnvVar bool
	ExcludeSlashTmp     bool
	// Sockets records the Unix sockets the commands sharing it bound;
	// with the network off a command connects only to those (see
	// SocketRegistry). Nil gives the command a registry of its own.
	Sockets *SocketRegistry
	// AllowProjectSockets lets a command with the network off connect to
	// any Unix socket below the project root, also one made outside the
	// sandbox (a database the user runs there); the user's own setting
	// alone ([sandbox_workspace_write] allow_project_sockets).
	AllowProjectSockets bool
	// MaxProcesses bounds the tasks (processes and threads) the command
	// and all it starts may have at once; 0 means DefaultMaxProcesses.
	MaxProcesses int
	// Own are agent-ls's own files and folders (its config and state
	// folders, the programs its config names): kept read-only like .git
	// wherever they lie inside a writable root, whatever the project
	// root. The runner adds the agent-ls binary and the helper itself.
	Own []string
	// Hidden are folders of agent-ls's own that a command may not even
	// read (the OAuth tokens of MCP servers): in the helper's mount
	// namespace an empty read-only tmpfs covers each. Without a mount
	// namespace (NoNamespace, or a kernel without user namespaces) they
	// stay readable, as protected paths stay writable there.
	Hidden []string
}

// PolicyFor is the policy of a command that runs in cwd inside the
// session boundary b. The boundary does not record which temporary
// directories were left out of it nor the cache root: the caller sets
// ExcludeTmpdirEnvVar, ExcludeSlashTmp and CacheRoot from the settings b
// was built with.
func PolicyFor(b *policy.Boundary, cwd string, network bool) Policy {
	var own, hidden []string
	for _, o := range b.Own() {
		own = append(own, o.Path)
		if o.Hidden {
			hidden = append(hidden, o.Path)
		}
	}
	return Policy{Mode: b.Mode(), Root: b.Root(), Cwd: cwd, WritableRoots: b.ExtraRoots(), Network: network, Own: own, Hidden: hidden}
}

func (p Policy) mode() policy.SandboxMode {
	if p.Mode == "" {
		return policy.DefaultSandboxMode
	}
	return p.Mode
}

func (p Policy) root() string {
	if p.Root == "" {
		return filepath.Clean(p.Cwd)
	}
	return filepath.Clean(p.Root)
}

func (p Policy) validate() error {
	if _, err := policy.ParseSandboxMode(string(p.Mode)); err != nil {
		return err
	}
	if !filepath.IsAbs(p.Cwd) {
		return fmt.Errorf("cwd %q is not an absolute path", p.Cwd)
	}
	if p.Root != "" && !filepath.IsAbs(p.Root) {
		return fmt.Errorf("project root %q is not an absolute path", p.Root)
	}
	return nil
}

// SandboxMode is the type of Policy.Mode.
type SandboxMode = policy.SandboxMode

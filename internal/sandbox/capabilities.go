package sandbox

// NoNamespaceEnv, set to a non-empty value in the agent's environment,
// makes the runner skip the user and mount namespace: Landlock and seccomp
// only, as on kernels without unprivileged user namespaces.
const NoNamespaceEnv = "AGENT_LS_SANDBOX_NO_USERNS"

// Capabilities is what the sandbox can enforce on this machine.
type Capabilities struct {
	// LandlockABI is the kernel's Landlock ABI version, 0 without Landlock
	// (the helper then refuses to run anything).
	LandlockABI int
	// Seccomp tells whether seccomp filters can be installed; SeccompNote
	// says why not.
	Seccomp     bool
	SeccompNote string
	// Namespaces tells whether the helper can enter a user and mount
	// namespace, which is what keeps the protected paths read-only inside
	// writable roots; NamespaceNote says why not.
	Namespaces    bool
	NamespaceNote string
	// PIDNamespace tells whether the helper also gets a PID namespace of
	// its own, which ends everything a command started when it exits;
	// without one a subreaper does that (see reaper_linux.c).
	PIDNamespace bool
	// UnixSockets tells whether, with the network off, Unix sockets may
	// be bound and connected to inside the project root (notify_linux.c);
	// UnixSocketsNote says why not.
	UnixSockets     bool
	UnixSocketsNote string
	// SessionNetwork tells whether, with the network off, the commands of
	// one session share a network namespace with only loopback in it
	// (netns_linux.go); SessionNetworkNote says why not. Where not, they
	// may make no TCP or UDP socket at all.
	SessionNetwork     bool
	SessionNetworkNote string
	// PidsCgroup is where each command gets a pids cgroup of its own that
	// bounds its processes (pids_linux.go), of cgroup version
	// PidsCgroupVersion; "" where none can be made (PidsCgroupNote says
	// why), and RLIMIT_NPROC stands in for users other than root.
	PidsCgroup        string
	PidsCgroupVersion int
	PidsCgroupNote    string
	// CacheRoot is where workspace-write commands get their toolchain
	// caches, from this process's environment (see CacheEnv).
	CacheRoot string
	// Unsupported says why this build of agent-ls has no sandbox at all
	// (an operating system other than Linux); empty on Linux.
	Unsupported string
}

// Unavailable says why no sandbox can confine commands here, or "" when
// one can: another operating system, a Linux build without cgo (so
// without libseccomp), or a kernel without Landlock or seccomp. A
// sandboxed command is then refused by the helper, never run unconfined;
// the agent asks the user before every command instead and runs an
// approved one with the user's own rights.
func (c Capabilities) Unavailable() string {
	switch {
	case c.Unsupported != "":
		return c.Unsupported
	case c.LandlockABI < 1:
		return "the kernel has no Landlock (it needs Linux 5.13 or later with landlock enabled)"
	case !c.Seccomp:
		return "seccomp is unavailable (" + c.SeccompNote + ")"
	}
	return ""
}

// unavailableSummary is Summary where no sandbox is available.
func unavailableSummary(why string) string {
	return "No sandbox: " + why + ". Commands run with the user's own rights, so every command needs the user's approval first; under the approval policy \"never\" and in unattended runs no command runs."
}

// explainUnavailable is the part of Explain that says no sandbox is
// available and what agent-ls does about it.
func explainUnavailable(line func(string, ...any), why string) {
	line("sandbox: NOT available: %s", why)
	line("         agent-ls asks before every command and runs an approved one unconfined, with your")
	line("         rights; under the approval policy never, and in unattended runs (exec --yes,")
	line("         --full-auto) without --dangerously-bypass-sandbox, commands are refused")
}

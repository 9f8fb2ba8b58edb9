package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// A session's workspace is its cwd and the other folders the frontend
// gives: an editor's workspace folders (Defaults.Folders), ACP's
// additionalDirectories and exec's --add-dir (SessionOptions.Folders).
// Each is inside the session's boundary; in workspace-write mode each is
// a writable root with its own protected names, unless it is one a
// command must never write (policy.FolderReadOnly): then it stays
// read-only and the frontend tells the user (FolderNotice).

// sessionFolders are the workspace folders of a session in cwd besides
// cwd itself: clean, absolute, each once, in the order given.
func sessionFolders(cwd string, lists ...[]string) []string {
	var out []string
	for _, list := range lists {
		for _, f := range list {
			if !filepath.IsAbs(f) {
				continue
			}
			f = filepath.Clean(f)
			if f != filepath.Clean(cwd) && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// writableFolders are the folders that become writable roots in mode.
func writableFolders(mode policy.SandboxMode, folders []string, cfg Defaults) []string {
	if mode != policy.WorkspaceWrite {
		return nil
	}
	var out []string
	for _, f := range folders {
		if folderReadOnly(f, cfg) == "" {
			out = append(out, f)
		}
	}
	return out
}

// folderReadOnly says why folder may not be a writable root, "" when it
// may (policy.FolderReadOnly, with agent-ls's config, state and cache
// folders as its own).
func folderReadOnly(folder string, cfg Defaults) string {
	home, _ := os.UserHomeDir()
	return policy.FolderReadOnly(folder, home, ownFolders(cfg))
}

// ownFolders are agent-ls's own paths that no workspace folder may lie
// in: those of the config (its config and state folders, its programs)
// and its cache folders (the configured cache_root, and
// $XDG_CACHE_HOME/agent-ls or ~/.cache/agent-ls).
func ownFolders(cfg Defaults) []policy.OwnPath {
	own := slices.Clone(cfg.OwnFiles)
	if cfg.CacheRoot != "" {
		own = append(own, policy.OwnPath{Path: cfg.CacheRoot, What: "agent-ls's cache folder"})
	}
	if dir, err := os.UserCacheDir(); err == nil {
		own = append(own, policy.OwnPath{Path: filepath.Join(dir, "agent-ls"), What: "agent-ls's cache folder"})
	}
	return own
}

// FolderNotice says why the workspace folder folder, beyond the first,
// stays read-only in a session of mode, or "" when it is writable (or
// the mode is not workspace-write, where no folder is). Frontends tell
// the user once.
func (m *Manager) FolderNotice(folder string, mode policy.SandboxMode) string {
	if mode == "" {
		mode = policy.DefaultSandboxMode
	}
	if mode != policy.WorkspaceWrite {
		return ""
	}
	cfg, _ := m.current()
	why := folderReadOnly(folder, cfg)
	if why == "" {
		return ""
	}
	return "agent-ls: " + why + ", so the agent may read it but not write it: commands there run read-only and a change to it needs your approval. Open a project folder instead."
}

// foldersContext is the environment context's list of the workspace
// folders besides cwd, each with whether it may be written.
func (s *session) foldersContext() string {
	folders := s.boundary.Folders()
	if len(folders) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("  <workspace_folders>\n")
	fmt.Fprintf(&b, "    <folder access=\"%s\">%s</folder>\n", s.folderAccess(s.info.Cwd), s.info.Cwd)
	for _, f := range folders {
		fmt.Fprintf(&b, "    <folder access=\"%s\">%s</folder>\n", s.folderAccess(f), f)
	}
	b.WriteString("  </workspace_folders>\n")
	return b.String()
}

// folderAccess names what the session may do in a workspace folder.
func (s *session) folderAccess(folder string) string {
	if folder == s.info.Cwd {
		if s.info.SandboxMode == policy.ReadOnly {
			return "read-only"
		}
		return "writable"
	}
	if s.boundary.FolderWritable(folder) {
		return "writable"
	}
	return "read-only"
}

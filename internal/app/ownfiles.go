package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/policy"
	kept "github.com/agent-ls/agent-ls/internal/session"
)

// ownFiles are agent-ls's own files and folders, which it reads, runs or
// trusts outside the sandbox: its config folder (a [[hooks]] entry
// written there runs unsandboxed at the next start), its state folder
// (sessions, transcripts, change-set journals), its binaries, and the
// programs that [[hooks]] and mcp_servers.*.command name, as found on
// PATH now. Sessions keep them read-only wherever the workspace is.
func (s *Settings) ownFiles() []policy.OwnPath {
	var out []policy.OwnPath
	add := func(path, what string) {
		if path != "" && filepath.IsAbs(path) {
			out = append(out, policy.OwnPath{Path: path, What: what})
		}
	}
	if f := config.UserFile(); f != "" {
		add(filepath.Dir(f), "agent-ls's config folder")
	}
	if dir, err := kept.DefaultDir(); err == nil {
		add(filepath.Dir(dir), "agent-ls's state folder (sessions, transcripts, change-set journals)")
	}
	if dir := mcpAuthDir(); dir != "" {
		out = append(out, policy.OwnPath{Path: dir, What: "the OAuth tokens of MCP servers (hidden from commands)", Hidden: true})
	}
	if self, err := os.Executable(); err == nil {
		add(self, "the agent-ls program")
	}
	add(sandboxHelper(), "agent-ls's sandbox helper")
	if s.Resolved == nil {
		return out
	}
	for _, h := range s.Hooks {
		if len(h.Command) > 0 {
			add(programPath(h.Command[0]), "a program the user's [[hooks]] run")
		}
	}
	if len(s.Notify) > 0 {
		add(programPath(s.Notify[0]), "the user's notify program")
	}
	names := make([]string, 0, len(s.MCPServers))
	for name := range s.MCPServers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if c := s.MCPServers[name].Command; c != "" {
			add(programPath(c), "the program of the MCP server "+name)
		}
	}
	return out
}

// programPath is where the program name runs from: looked up on PATH as
// the hooks and MCP servers look it up; "" when it is not found.
func programPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	if p, err = filepath.Abs(p); err != nil {
		return ""
	}
	return p
}

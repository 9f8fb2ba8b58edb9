package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-ls/agent-ls/internal/config"
)

// TestOwnFilesOfTheSettings: agent-ls's own files are its config and
// state folders, its binary and the programs its hooks and MCP servers
// run, found on PATH; the MCP token folder is hidden.
func TestOwnFilesOfTheSettings(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	bin := filepath.Join(home, "bin")
	os.Mkdir(bin, 0o755)
	for _, p := range []string{"lint-hook", "mcp-thing"} {
		os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s, _, done := parseTest(t, nil, "[[hooks]]\nevent = \"before_tool_use\"\ncommand = [\"lint-hook\", \"--fix\"]\n[mcp_servers.thing]\ncommand = \"mcp-thing\"\n")
	if done {
		t.Fatal("parse failed")
	}
	got := map[string]string{}
	var hidden []string
	for _, o := range s.ownFiles() {
		got[o.Path] = o.What
		if o.Hidden {
			hidden = append(hidden, o.Path)
		}
	}
	// The OAuth tokens of MCP servers are hidden from commands, not
	// only kept read-only.
	if want := filepath.Join(home, "state", "agent-ls", "mcp-auth"); len(hidden) != 1 || hidden[0] != want {
		t.Errorf("hidden %q, want %s alone", hidden, want)
	}
	self, _ := os.Executable()
	for _, want := range []string{filepath.Dir(config.UserFile()), filepath.Join(home, "state", "agent-ls"), self,
		filepath.Join(bin, "lint-hook"), filepath.Join(bin, "mcp-thing")} {
		if got[want] == "" {
			t.Errorf("%s is not among agent-ls's own files: %v", want, got)
		}
	}
}

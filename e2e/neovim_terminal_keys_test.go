//go:build unix

package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeovimPluginTerminalsPerSession: the plugin keeps the agent's
// terminals per session, so that a new conversation's terminal 1000
// neither takes over nor rewrites the old conversation's
// (testdata/terminal_keys.lua, in each Neovim).
func TestNeovimPluginTerminalsPerSession(t *testing.T) {
	plugin, err := filepath.Abs(pluginDir)
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "terminal_keys.lua"))
	if err != nil {
		t.Fatal(err)
	}
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(nvim, "-n", "--headless", "--clean", "-c", "set rtp^="+plugin, "-c", "luafile "+script)
			cmd.Dir = t.TempDir()
			cmd.Env = environment(t.TempDir(), "http://127.0.0.1:1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "TERMINALS OK") {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

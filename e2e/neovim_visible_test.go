//go:build unix

package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeovimPluginShowsControlsEscaped: the plugin's views (the
// conversation buffer, the approval prompt, the message pickers and
// notifications) show hostile text from the model and the repository
// with its control and bidi characters escaped, and the approval prompt
// quotes the command word by word as agent-ls does
// (testdata/visible.lua, in each Neovim).
func TestNeovimPluginShowsControlsEscaped(t *testing.T) {
	plugin, err := filepath.Abs(pluginDir)
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "visible.lua"))
	if err != nil {
		t.Fatal(err)
	}
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(nvim, "-n", "--headless", "--clean", "-c", "set rtp^="+plugin, "-c", "luafile "+script)
			cmd.Dir = t.TempDir()
			cmd.Env = environment(t.TempDir(), "http://127.0.0.1:1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "VISIBLE OK") {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

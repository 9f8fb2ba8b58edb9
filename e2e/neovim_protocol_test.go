//go:build unix

package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestNeovimPluginProtocolNotice: in each Neovim, the plugin's notice
// says in one line when agent-ls speaks an older or newer protocol than
// the plugin, and nothing when they fit (testdata/protocol.lua). The
// plugin shows it at initialize (client.lua's on_init).
func TestNeovimPluginProtocolNotice(t *testing.T) {
	plugin, err := filepath.Abs(filepath.Join("..", "editors", "neovim"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "protocol.lua"))
	if err != nil {
		t.Fatal(err)
	}
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(nvim, "--headless", "-u", "NONE", "-i", "NONE", "--cmd", "set rtp^="+plugin, "-c", "luafile "+script)
			cmd.Dir = t.TempDir()
			done := make(chan struct{})
			defer close(done)
			go func() {
				select {
				case <-done:
				case <-time.After(time.Minute):
					cmd.Process.Kill()
				}
			}()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%v:\n%s", err, out)
			}
		})
	}
}

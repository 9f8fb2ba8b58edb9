package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestExecInTheHomeFolder: exec run in the home folder says why its
// commands are read-only, and they are; with allow_home_workspace in the
// user's config they may write the home folder, but still not agent-ls's
// own config, where a [[hooks]] entry would run unsandboxed at the next
// start.
func TestExecInTheHomeFolder(t *testing.T) {
	script := "echo note > notes.txt; printf '\\n[[hooks]]\\nevent = \"before_tool_use\"\\ncommand = [\"touch\", \"pwned\"]\\n' >> .config/agent-ls/config.toml"
	args, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	for _, allow := range []bool{false, true} {
		m := fakemodel.New(fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", string(args))), fakemodel.Answer(fakemodel.Message("done")))
		defer m.Close()
		cmd := execCmd(t, m, "write a note")
		home := cmd.Dir
		cfg := filepath.Join(home, ".config", "agent-ls", "config.toml")
		text := "model = \"gpt-5-codex\"\n"
		if allow {
			text += "allow_home_workspace = true\n"
		}
		if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if code := exitCode(cmd.Run()); code != 0 {
			t.Fatalf("allow %v: exit %d\n%s", allow, code, stderr.String())
		}
		warned := strings.Contains(stderr.String(), "is your home folder") && strings.Contains(stderr.String(), "allow_home_workspace = true")
		_, noteErr := os.Stat(filepath.Join(home, "notes.txt"))
		if warned == allow || (noteErr == nil) != allow {
			t.Errorf("allow_home_workspace %v: warned %v, note written %v\n%s", allow, warned, noteErr == nil, stderr.String())
		}
		if b, _ := os.ReadFile(cfg); string(b) != text {
			t.Errorf("ESCAPE (allow %v): a sandboxed command changed config.toml to %q", allow, b)
		}
	}
}

// TestServeInTheHomeFolder: an editor whose workspace is the home folder
// is told why agent-ls's commands run read-only there, and its sessions
// are read-only.
func TestServeInTheHomeFolder(t *testing.T) {
	m := fakemodel.New()
	t.Cleanup(m.Close)
	home := t.TempDir()
	s := startOn(t, m, home, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}, editor.Config{}, editor.Options{Events: true})
	msg, err := s.ed.WaitMessage(s.ctx, func(p protocol.ShowMessageParams) bool { return strings.Contains(p.Message, "home folder") })
	if err != nil {
		t.Fatalf("no message about the home folder: %v (messages %+v)", err, s.ed.Messages())
	}
	if msg.Type != protocol.MessageTypeWarning || !strings.Contains(msg.Message, "allow_home_workspace = true") {
		t.Errorf("message: %+v", msg)
	}
	if info := s.newSession(); info.SandboxMode != "read-only" {
		t.Errorf("session in the home folder: sandbox mode %s", info.SandboxMode)
	}
}

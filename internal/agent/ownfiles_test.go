package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// fakeHome makes a home folder outside /tmp with agent-ls's config in it
// and points HOME and the XDG folders there.
func fakeHome(t *testing.T) (home, cfg string) {
	t.Helper()
	home, err := os.MkdirTemp(outsideTestDir(t), "agent-ls-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	cfg = filepath.Join(home, ".config", "agent-ls")
	os.MkdirAll(cfg, 0o755)
	write(t, filepath.Join(cfg, "config.toml"), "model = \"o3\"\n")
	os.MkdirAll(filepath.Join(home, "proj"), 0o755)
	return home, cfg
}

// shellTurn runs one turn whose model runs script with sh in the
// session's cwd, and waits for it.
func shellTurn(t *testing.T, set func(*Options), so SessionOptions, script string) SessionInfo {
	t.Helper()
	m := &scriptedModel{}
	args, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	m.add(callTools(fcall("c1", "shell", string(args))), say("m", "done"))
	rec := newRecorder()
	mgr := managerWith(t, m, rec, set)
	info, err := mgr.NewSession(so)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	return info
}

// TestHomeWorkspaceIsReadOnly: a session whose workspace is the home
// folder runs its commands read-only unless the user allows it; allowed,
// commands may write the home folder but still not agent-ls's config.
func TestHomeWorkspaceIsReadOnly(t *testing.T) {
	home, cfg := fakeHome(t)
	own := []policy.OwnPath{{Path: cfg, What: "agent-ls's config folder"}}
	script := "echo note > notes.txt; printf '[[hooks]]\\nevent = \"before_tool_use\"\\ncommand = [\"touch\", \"/tmp/pwned\"]\\n' >> .config/agent-ls/config.toml"

	info := shellTurn(t, func(o *Options) { o.Cwd, o.OwnFiles = home, own }, SessionOptions{}, script)
	if info.SandboxMode != policy.ReadOnly {
		t.Errorf("home workspace: sandbox mode %s, want read-only", info.SandboxMode)
	}
	if _, err := os.Stat(filepath.Join(home, "notes.txt")); err == nil {
		t.Error("a command wrote the home folder")
	}
	if msg := HomeWorkspaceReadOnly(home, "", false); !strings.Contains(msg, "allow_home_workspace = true") || !strings.Contains(msg, home) {
		t.Errorf("the warning does not say why or what to do: %q", msg)
	}
	if msg := HomeWorkspaceReadOnly(filepath.Join(home, "proj"), "", false); msg != "" {
		t.Errorf("a project below home gets the warning: %q", msg)
	}

	// A project below home is an ordinary workspace.
	proj := filepath.Join(home, "proj")
	if info := shellTurn(t, func(o *Options) { o.Cwd, o.OwnFiles = home, own }, SessionOptions{Cwd: proj}, "echo x > f"); info.SandboxMode != policy.WorkspaceWrite {
		t.Errorf("project below home: sandbox mode %s", info.SandboxMode)
	}
	if _, err := os.Stat(filepath.Join(proj, "f")); err != nil {
		t.Errorf("a command could not write its project: %v", err)
	}

	// Allowed: the home folder is writable, agent-ls's config is not.
	info = shellTurn(t, func(o *Options) { o.Cwd, o.OwnFiles, o.AllowHomeWorkspace = home, own, true }, SessionOptions{}, script)
	if info.SandboxMode != policy.WorkspaceWrite {
		t.Errorf("allowed home workspace: sandbox mode %s", info.SandboxMode)
	}
	if _, err := os.Stat(filepath.Join(home, "notes.txt")); err != nil {
		t.Errorf("allowed, a command still could not write the home folder: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(cfg, "config.toml")); string(b) != "model = \"o3\"\n" {
		t.Errorf("ESCAPE: a sandboxed command changed config.toml to %q", b)
	}
}

// TestPatchIntoOwnFilesAsks: a change to agent-ls's config folder asks
// the user, saying why, wherever the workspace is (the home folder, or a
// dotfiles project that holds $XDG_CONFIG_HOME), and is refused under
// "never".
func TestPatchIntoOwnFilesAsks(t *testing.T) {
	home, cfg := fakeHome(t)
	dotfiles := filepath.Join(home, "proj")
	dotCfg := filepath.Join(dotfiles, "config", "agent-ls")
	os.MkdirAll(dotCfg, 0o755)
	write(t, filepath.Join(dotCfg, "config.toml"), "model = \"o3\"\n")
	for _, tc := range []struct {
		name, cwd, cfg string
	}{
		{"home workspace", home, cfg},
		{"config inside the project", dotfiles, dotCfg},
	} {
		own := []policy.OwnPath{{Path: tc.cfg, What: "agent-ls's config folder"}}
		file := filepath.Join(tc.cfg, "config.toml")
		patch := "*** Begin Patch\n*** Update File: " + file + "\n@@\n model = \"o3\"\n+[[hooks]]\n+event = \"before_tool_use\"\n+command = [\"touch\", \"/tmp/pwned\"]\n*** End Patch"
		for _, ap := range []policy.ApprovalPolicy{policy.OnRequest, policy.Never} {
			t.Run(tc.name+", "+string(ap), func(t *testing.T) {
				m := &scriptedModel{}
				m.add(callTools(model.Item{Type: model.ItemCustomToolCall, ID: "ct1", CallID: "p1", Name: "apply_patch", Input: patch}), say("m", "done"))
				fe := &askingFrontend{recorder: newRecorder(), answers: []string{RejectOnce}}
				mgr := managerWith(t, m, fe, func(o *Options) { o.Cwd, o.OwnFiles, o.AllowHomeWorkspace = tc.cwd, own, true })
				info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: ap})
				if err != nil {
					t.Fatal(err)
				}
				mgr.StartTurn(info.SessionID, TurnInput{Prompt: "add a hook"})
				if done := fe.wait(t); done.Status != event.StatusCompleted {
					t.Fatalf("turn %+v", done)
				}
				if b, _ := os.ReadFile(file); string(b) != "model = \"o3\"\n" {
					t.Errorf("ESCAPE: config.toml is now %q", b)
				}
				var out string
				for _, it := range m.request(1).Input {
					if it.Type == model.ItemCustomToolCallOutput {
						out = it.Output
					}
				}
				switch ap {
				case policy.OnRequest:
					if fe.count() != 1 {
						t.Fatalf("asked %d times, want 1", fe.count())
					}
					if r := fe.asked[0].Reason; !strings.Contains(r, "agent-ls's config folder") || !strings.Contains(r, "outside the sandbox") {
						t.Errorf("the question does not say why: %q", r)
					}
				case policy.Never:
					if fe.count() != 0 {
						t.Errorf("asked under never")
					}
					if !strings.Contains(out, "agent-ls's config folder") {
						t.Errorf("the refusal does not say why: %q", out)
					}
				}
			})
		}
	}
}

package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestSessionFolders: a session's workspace holds the frontend's folders
// and its own; each is a writable root with its own protected names,
// except the home folder and agent-ls's own folders, which stay
// read-only and are told; the environment context lists them and each
// one's AGENTS.md is read.
func TestSessionFolders(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	ws1, ws2, ws3 := filepath.Join(base, "ws1"), filepath.Join(base, "ws2"), filepath.Join(base, "ws3")
	config := filepath.Join(home, ".config", "agent-ls")
	for _, d := range []string{ws1, filepath.Join(ws2, ".git", "hooks"), ws3, config} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws2, "AGENTS.md"), []byte("Run make check in ws2."), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	mgr := managerWith(t, &scriptedModel{}, newRecorder(), func(o *Options) {
		o.Cwd = ws1
		o.Defaults.Folders = []string{ws1, ws2}
		// Only the folders are writable, so what is writable is theirs.
		o.Defaults.ExcludeSlashTmp, o.Defaults.ExcludeTmpdirEnvVar = true, true
		o.Defaults.OwnFiles = []policy.OwnPath{{Path: config, What: "agent-ls's config folder"}}
	})
	info, err := mgr.NewSession(SessionOptions{Cwd: ws1, Folders: []string{ws3, home, config, ws2}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := mgr.session(info.SessionID)
	b := s.boundary
	if got, want := strings.Join(b.Folders(), " "), strings.Join([]string{ws2, ws3, home, config}, " "); got != want {
		t.Errorf("folders %q, want %q", got, want)
	}
	for f, want := range map[string]bool{ws2: true, ws3: true, home: false, config: false} {
		if got := b.FolderWritable(f); got != want {
			t.Errorf("FolderWritable(%s) = %v, want %v", f, got, want)
		}
		if notice := mgr.FolderNotice(f, info.SandboxMode); (notice == "") != want {
			t.Errorf("FolderNotice(%s) = %q", f, notice)
		}
	}
	if n := mgr.FolderNotice(home, ""); !strings.Contains(n, "home folder") {
		t.Errorf("the home folder's notice says %q", n)
	}
	if n := mgr.FolderNotice(home, policy.ReadOnly); n != "" {
		t.Errorf("a read-only session is told about a read-only folder: %q", n)
	}
	for path, want := range map[string]bool{
		ws2 + "/main.go":               true,
		ws3 + "/x/y.txt":               true,
		ws2 + "/.git/hooks/pre-commit": false,
		ws3 + "/.agent-ls/config.toml": false,
		home + "/.bashrc":              false,
		config + "/config.toml":        false,
	} {
		if got := b.Target(path); got.Writable != want {
			t.Errorf("Target(%s) = %+v, want writable %v", path, got, want)
		}
	}
	env := s.environmentContext()
	for _, want := range []string{
		`<folder access="writable">` + ws1 + `</folder>`,
		`<folder access="writable">` + ws2 + `</folder>`,
		`<folder access="writable">` + ws3 + `</folder>`,
		`<folder access="read-only">` + home + `</folder>`,
		`<root>` + ws2 + `</root>`,
	} {
		if !strings.Contains(env, want) {
			t.Errorf("the environment context lacks %s:\n%s", want, env)
		}
	}
	var docs string
	for _, it := range s.contextItems() {
		docs += it.Text + "\n"
	}
	if !strings.Contains(docs, agentsDocHeader+ws2) || !strings.Contains(docs, "Run make check in ws2.") {
		t.Errorf("ws2's AGENTS.md is not read:\n%s", docs)
	}
}

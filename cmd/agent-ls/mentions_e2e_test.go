package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestServeTwoFoldersAndMentions: an editor with two workspace folders
// completes @-mentions over both; a prompt sent with a mention as context
// carries the file; the model's environment lists both folders; a home
// folder added later stays read-only and the editor is told.
func TestServeTwoFoldersAndMentions(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	one, two, home := filepath.Join(base, "one"), filepath.Join(base, "two"), filepath.Join(base, "home")
	for _, f := range []string{filepath.Join(one, "app", "config.go"), filepath.Join(two, "lib", "config.go"), filepath.Join(home, ".keep")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("package x // marker "+filepath.Base(filepath.Dir(f))+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := fakemodel.New(fakemodel.Say("ok"))
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.Command(binary, "--stdio", "--log-level", "debug")
	cmd.Dir = one
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex",
		"HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"), "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	log := &syncWriter{w: &strings.Builder{}}
	cmd.Stderr = log
	ed, err := editor.Start(cmd, editor.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ed.Disconnect()
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	if _, err := ed.Initialize(ctx, editor.Options{WorkspaceFolders: []string{one, two}, Events: true}); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Items []struct {
			URI   string `json:"uri"`
			Kind  string `json:"kind"`
			Label string `json:"label"`
		} `json:"items"`
	}
	if err := ed.Request(ctx, "agent/completeMention", map[string]any{"query": "config", "limit": 10}, &res); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range res.Items {
		got = append(got, it.Kind+":"+it.Label+":"+strings.TrimPrefix(it.URI, "file://"))
	}
	want := []string{"file:app/config.go:" + filepath.Join(one, "app", "config.go"), "file:lib/config.go:" + filepath.Join(two, "lib", "config.go")}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("completeMention = %v, want %v", got, want)
	}

	if err := ed.Notify(ctx, protocol.MethodWorkspaceDidChangeWorkspaceFolders, map[string]any{
		"event": map[string]any{"added": []any{map[string]any{"uri": uri.File(home), "name": "home"}}, "removed": []any{}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitMessage(ctx, func(p protocol.ShowMessageParams) bool {
		return strings.Contains(p.Message, home) && strings.Contains(p.Message, "home folder")
	}); err != nil {
		t.Errorf("the editor was not told the home folder stays read-only: %v %v", err, ed.Shown())
	}
	var st struct {
		TurnID string `json:"turnId"`
	}
	mention := filepath.Join(two, "lib", "config.go")
	if err := ed.Request(ctx, "agent/startTurn", map[string]any{"prompt": "look at @lib/config.go",
		"context": []any{map[string]any{"uri": uri.File(mention)}}}, &st); err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitTurnCompleted(ctx, st.TurnID); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	body := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\"`, `"`).Replace(string(reqs[0].Body))
	for _, w := range []string{
		`<folder access="writable">` + one + `</folder>`,
		`<folder access="writable">` + two + `</folder>`,
		`<folder access="read-only">` + home + `</folder>`,
		"package x // marker lib",
	} {
		if !strings.Contains(body, w) {
			t.Errorf("the request lacks %q:\n%s", w, body)
		}
	}
}

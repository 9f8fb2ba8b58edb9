package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// elicitConfig is a user config with the reference server offering only
// its form.
func elicitConfig(t *testing.T) string {
	return writeConfig(t, fmt.Sprintf(`[mcp_servers.everything]
command = %q
args = ["stdio"]
startup_timeout_sec = 60
enabled_tools = ["trigger-elicitation-request"]
approval = "auto"
`, everythingServer(t)))
}

// startEliciting is startWith for an editor that opts in to events and
// agent/elicit (which the fake editor's options do not name): its
// initialize is sent as it is.
func startEliciting(t *testing.T, env []string, cfg editor.Config, steps ...fakemodel.Step) *session {
	t.Helper()
	m := fakemodel.New(steps...)
	t.Cleanup(m.Close)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	cmd := exec.Command(binary, "--stdio")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex", "XDG_STATE_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	log := &syncWriter{w: &strings.Builder{}}
	cmd.Stderr = log
	ed, err := editor.Start(cmd, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The state folder is removed after the server has written
		// what it keeps as it shuts down.
		ed.Disconnect()
		wctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
		defer stop()
		ed.WaitExit(wctx)
	})
	params := map[string]any{"rootUri": uri.File(dir), "workspaceFolders": []map[string]any{{"uri": uri.File(dir), "name": dir}},
		"capabilities": map[string]any{"experimental": map[string]any{"agent": map[string]any{"events": true, "elicitation": true}}}}
	var res json.RawMessage
	if err := ed.Request(ctx, protocol.MethodInitialize, params, &res); err != nil {
		t.Fatal(err)
	}
	if err := ed.Notify(ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return &session{t: t, ed: ed, model: m, dir: dir, ctx: ctx, log: log, cmd: cmd}
}

// toolOutput is the output of the call callID in the turn.
func (s *session) toolOutput(turnID, callID string) string {
	for _, ev := range s.events(turnID) {
		if ev.Type == "toolResult" && ev.CallID == callID {
			return ev.Output
		}
	}
	return ""
}

// TestServeElicitation: the reference server's form, during a call of a
// turn, reaches an editor that opts in as agent/elicit, with the
// session and the turn; the name it answers reaches the server, whose
// result the model reads. An editor that does not opt in has the form
// declined, and the model reads why.
func TestServeElicitation(t *testing.T) {
	env := []string{elicitConfig(t)}
	var mu sync.Mutex
	var asked []map[string]any
	cfg := editor.Config{Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
		if method != "agent/elicit" {
			return nil, fmt.Errorf("unexpected %s", method)
		}
		var p map[string]any
		json.Unmarshal(params, &p)
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		return map[string]any{"action": "accept", "content": map[string]any{"name": "Ada", "integer": 7}}, nil
	}}
	steps := []fakemodel.Step{fakemodel.Answer(fakemodel.FunctionCall("c1", "everything__trigger-elicitation-request", `{}`)), fakemodel.Say("done")}
	s := startEliciting(t, env, cfg, steps...)
	turn := s.startTurn(map[string]any{"prompt": "ask me"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	out := s.toolOutput(turn.TurnID, "c1")
	for _, want := range []string{"User provided the requested information", "Name: Ada", "Favorite Integer: 7"} {
		if !strings.Contains(out, want) {
			t.Errorf("the model read %q, without %q", out, want)
		}
	}
	mu.Lock()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	p := asked[0]
	schema, _ := json.Marshal(p["schema"])
	if p["sessionId"] != turn.SessionID || p["turnId"] != turn.TurnID || p["server"] != "everything" ||
		p["message"] != "Please provide inputs for the following fields:" || !strings.Contains(string(schema), `"required":["name"]`) ||
		!strings.Contains(string(schema), `{"const":"hero-2","title":"Green Lantern"}`) {
		t.Errorf("agent/elicit %v", p)
	}
	mu.Unlock()

	// A stock editor: the form of many fields is declined.
	plain := startWith(t, env, editor.Config{}, editor.Options{Events: true}, steps...)
	turn = plain.startTurn(map[string]any{"prompt": "ask me"})
	if done := plain.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	out = plain.toolOutput(turn.TurnID, "c1")
	for _, want := range []string{"User declined to provide the requested information", "[agent-ls: the MCP server's question was declined: the editor cannot show its form"} {
		if !strings.Contains(out, want) {
			t.Errorf("the model read %q, without %q", out, want)
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// hoverSteps: the model asks for a hover on a.go, then answers.
func hoverSteps() []fakemodel.Step {
	return []fakemodel.Step{fakemodel.Answer(fakemodel.FunctionCall("h1", "lsp_hover", `{"path":"a.go","line":1,"symbol":"a"}`)), fakemodel.Say("done")}
}

// offersLanguageTools reports which lsp_* tools the request offers.
func offersLanguageTools(t *testing.T, r *fakemodel.Request) []string {
	t.Helper()
	var lsp []string
	for _, name := range requestTools(t, r) {
		if strings.HasPrefix(name, "lsp_") {
			lsp = append(lsp, name)
		}
	}
	return lsp
}

// TestLanguageQueryOverTheWire: an editor with
// experimental.agent.language is offered the seven lsp_* tools and gets
// agent/languageQuery with the session, turn, call, kind, file URI and
// position; its Hover reaches the model.
func TestLanguageQueryOverTheWire(t *testing.T) {
	var mu sync.Mutex
	var got map[string]any
	cfg := editor.Config{Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
		if method != "agent/languageQuery" {
			return nil, fmt.Errorf("unexpected %s", method)
		}
		mu.Lock()
		defer mu.Unlock()
		json.Unmarshal(params, &got)
		return map[string]any{"contents": map[string]any{"kind": "markdown", "value": "package a"}}, nil
	}}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := fakemodel.New(hoverSteps()...)
	t.Cleanup(m.Close)
	s := startOn(t, m, dir, nil, cfg, editor.Options{Events: true, Language: true})
	turn := s.startTurn(map[string]any{"prompt": "what is a?"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	reqs := s.model.Requests()
	if n := len(offersLanguageTools(t, reqs[0])); n != 7 {
		t.Errorf("%d lsp tools offered: %q", n, offersLanguageTools(t, reqs[0]))
	}
	if out := callOutput(t, reqs[1].Body); out != "package a" {
		t.Errorf("the model read %q", out)
	}
	mu.Lock()
	defer mu.Unlock()
	pos, _ := got["position"].(map[string]any)
	if got["kind"] != "hover" || got["turnId"] != turn.TurnID || got["callId"] != "h1" || got["sessionId"] == "" ||
		!strings.HasSuffix(got["uri"].(string), "/a.go") || pos["line"] != 0.0 || pos["character"] != 8.0 {
		t.Errorf("params %v", got)
	}
}

// TestLanguageToolsNotOfferedToStockClients: an editor without the
// capability, and an ACP client, are never offered the lsp_* tools; a
// call made anyway is told why, and nothing is sent.
func TestLanguageToolsNotOfferedToStockClients(t *testing.T) {
	m := fakemodel.New(hoverSteps()...)
	t.Cleanup(m.Close)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startOn(t, m, dir, nil, editor.Config{}, editor.Options{Events: true, Questions: true})
	turn := s.startTurn(map[string]any{"prompt": "what is a?"})
	s.wait(turn.TurnID)
	reqs := s.model.Requests()
	if lsp := offersLanguageTools(t, reqs[0]); len(lsp) != 0 {
		t.Errorf("an editor without experimental.agent.language is offered %q", lsp)
	}
	if out := callOutput(t, reqs[1].Body); !strings.Contains(out, "cannot be asked in this session") {
		t.Errorf("the model read %q", out)
	}

	acp := fakemodel.New(hoverSteps()...)
	t.Cleanup(acp.Close)
	r := startACP(t, acp, dir, t.TempDir(), &acpClient{})
	r.initialize(true)
	id := r.newSession()
	if res, err := r.prompt(id, "what is a?"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	if lsp := offersLanguageTools(t, acp.Requests()[0]); len(lsp) != 0 {
		t.Errorf("an ACP client is offered %q", lsp)
	}
}

package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

// keptConversation is a session as a restart leaves it: one turn that
// changed a file.
func keptConversation(id, cwd string) keptSession {
	turn := id + "-t1"
	ev := func(seq int64, p event.Payload) event.Event {
		return event.Event{SessionID: id, TurnID: turn, Seq: seq, Payload: p}
	}
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	return keptSession{
		summary: agent.SessionSummary{SessionID: id, Cwd: cwd, Title: "Fix the parser", CreatedAt: at, UpdatedAt: at.Add(time.Minute), Turns: 1},
		items: []event.Event{
			ev(1, event.TurnStarted{Prompt: "Fix the parser"}),
			ev(3, event.ToolCall{CallID: "c1", Tool: "apply_patch", Kind: event.KindEdit, Title: "Edit parser.go", Arguments: json.RawMessage(`"patch"`)}),
			ev(4, event.FileChange{CallID: "c1", Changes: []event.FileChangeEntry{{URI: string(uri.File(filepath.Join(cwd, "parser.go"))), Kind: event.ChangeUpdate, Additions: 1, Deletions: 1}}, Status: event.ChangeApplied}),
			ev(5, event.ToolResult{CallID: "c1", Tool: "apply_patch", Status: event.ToolCompleted, Output: "Success"}),
			ev(6, event.Message{ItemID: "m1", Text: "The parser is fixed."}),
			ev(8, event.TurnCompleted{Status: event.StatusCompleted, LastMessage: "The parser is fixed."}),
		},
	}
}

func TestListAndResumeSessions(t *testing.T) {
	transcripts, ws := t.TempDir(), t.TempDir()
	h := newHarness(t, withTranscripts(transcripts))
	h.initialize(editor.Options{Events: true, WorkspaceFolders: []string{ws}})
	h.agent.kept = []keptSession{keptConversation("s-old", ws)}
	// A transcript a crash left short.
	os.WriteFile(filepath.Join(transcripts, "s-old.md"), []byte("# agent-ls conversation s-old\n\n## You\n\nFix"), 0o600)

	var list struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := h.ed.Request(h.ctx, methodListSessions, map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 {
		t.Fatalf("sessions %+v", list.Sessions)
	}
	got := list.Sessions[0]
	want := map[string]any{"sessionId": "s-old", "cwd": string(uri.File(ws)), "title": "Fix the parser",
		"createdAt": "2026-11-01T10:00:00Z", "updatedAt": "2026-11-01T10:01:00Z", "turns": float64(1)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}

	var res struct {
		SessionID string            `json:"sessionId"`
		Cwd       string            `json:"cwd"`
		Model     string            `json:"model"`
		Items     []json.RawMessage `json:"items"`
	}
	if err := h.ed.Request(h.ctx, methodResumeSession, map[string]any{"sessionId": "s-old"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.SessionID != "s-old" || res.Cwd != string(uri.File(ws)) || res.Model != "fake-model" || len(res.Items) != 6 {
		t.Fatalf("resume = %+v", res)
	}
	// Each item is drawn as the live event was: the same object.
	var first struct {
		TurnID string `json:"turnId"`
		Type   string `json:"type"`
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(res.Items[0], &first); err != nil || first.TurnID != "s-old-t1" || first.Type != "turnStarted" || first.Prompt != "Fix the parser" {
		t.Errorf("first item %s (%v)", res.Items[0], err)
	}
	// The resumed session is current: a plain turn continues it.
	r := execute(t, h, commandStartTurn, map[string]any{"prompt": "and the tests"})
	if r["sessionId"] != "s-old" {
		t.Errorf("agent.startTurn went to %v", r["sessionId"])
	}
	// Its transcript is written anew from the record when it is shown.
	if shown := execute(t, h, commandShowConversation); shown["uri"] != string(uri.File(filepath.Join(transcripts, "s-old.md"))) {
		t.Errorf("showConversation = %v", shown)
	}
	md := readTranscript(t, h, filepath.Join(transcripts, "s-old.md"))
	for _, want := range []string{"## You\n\nFix the parser\n", "- Edit parser.go", "The parser is fixed.", "_Turn completed._"} {
		if !strings.Contains(md, want) {
			t.Errorf("transcript lacks %q:\n%s", want, md)
		}
	}

	for _, p := range []map[string]any{{}, {"sessionId": "s-nope"}} {
		err := h.ed.Request(h.ctx, methodResumeSession, p, nil)
		rpcError(t, err, int64(jsonrpc2.InvalidParams))
	}
}

// readTranscript waits until everything queued has reached the file.
func readTranscript(t *testing.T, h *harness, path string) string {
	t.Helper()
	if err := h.agent.cfg.Frontend.(*server).out.drained(h.ctx); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// After a restart, the workspace's current session is its most recent
// kept one: a code action's turn continues it.
func TestCurrentSessionAfterRestart(t *testing.T) {
	transcripts, ws := t.TempDir(), t.TempDir()
	h := newHarness(t, withTranscripts(transcripts))
	h.initialize(editor.Options{WorkspaceFolders: []string{ws}})
	h.agent.kept = []keptSession{keptConversation("s-last", ws), keptConversation("s-before", ws)}
	r := execute(t, h, commandStartTurn, map[string]any{"prompt": "go on"})
	if r["sessionId"] != "s-last" {
		t.Fatalf("the first plain turn went to %v, want the workspace's last session", r["sessionId"])
	}
	if got := strings.Join(h.agent.resumed, ","); got != "s-last" {
		t.Errorf("resumed %s", got)
	}
	// The transcript is written anew before the turn adds to it.
	h.agent.emit("s-last", r["turnId"].(string), event.TurnStarted{Prompt: "go on"})
	md := readTranscript(t, h, filepath.Join(transcripts, "s-last.md"))
	if !strings.Contains(md, "The parser is fixed.\n\n_Turn completed._\n\n## You\n\ngo on") {
		t.Errorf("transcript:\n%s", md)
	}
	// A new conversation stays new.
	execute(t, h, commandNewSession)
	r = execute(t, h, commandStartTurn, map[string]any{"prompt": "fresh"})
	if r["sessionId"] == "s-last" {
		t.Error("agent.newSession did not start a new conversation")
	}
}

// A connection that started a session of its own does not bring back an
// older one for its plain turns.
func TestOwnSessionBeforeLatest(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	h.agent.kept = []keptSession{keptConversation("s-last", t.TempDir())}
	own := h.startTurn(map[string]any{"prompt": "one"})
	h.agent.complete(own.SessionID, own.TurnID, event.StatusCompleted)
	r := execute(t, h, commandStartTurn, map[string]any{"prompt": "two"})
	if r["sessionId"] == "s-last" || len(h.agent.resumed) != 0 {
		t.Errorf("turn went to %v; resumed %v", r["sessionId"], h.agent.resumed)
	}
}

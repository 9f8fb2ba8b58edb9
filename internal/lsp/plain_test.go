package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

// withTranscripts keeps transcripts in dir.
func withTranscripts(dir string) harnessOption {
	return func(o *Options, _ *editor.Config) { o.TranscriptDir = dir }
}

// execute runs a workspace/executeCommand.
func execute(t *testing.T, h *harness, command string, args ...any) map[string]any {
	t.Helper()
	var res map[string]any
	if err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": args}, &res); err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	return res
}

// waitMessage waits for a showMessage (or logMessage) containing text.
func waitMessage(t *testing.T, h *harness, typ protocol.MessageType, text string) string {
	t.Helper()
	m, err := h.ed.WaitMessage(h.ctx, func(m protocol.ShowMessageParams) bool {
		return m.Type == typ && strings.Contains(m.Message, text)
	})
	if err != nil {
		t.Fatalf("no message of type %d saying %q (got %+v): %v", typ, text, h.ed.Messages(), err)
	}
	return m.Message
}

// TestPlainClientSeesTheTurn: a client with neither agent/event nor
// progress hears when a turn starts, gets the streamed text line by line
// in its log, and the answer, status and transcript path when it ends.
func TestPlainClientSeesTheTurn(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, withTranscripts(dir))
	h.initialize(editor.Options{ApplyEdit: true})
	turn := h.startTurn(map[string]any{"prompt": "Fix the greeting\nplease"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnStarted{Prompt: "Fix the greeting\nplease"})
	for _, d := range []string{"Looking at ", "it.\nSecond", " line\nthird"} {
		h.agent.emit(turn.SessionID, turn.TurnID, event.MessageDelta{ItemID: "m", Delta: d})
	}
	h.agent.emit(turn.SessionID, turn.TurnID, event.Message{ItemID: "m", Text: "Looking at it.\nSecond line\nthird"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.ToolCall{CallID: "c", Tool: "shell", Title: "go test ./..."})
	h.agent.emit(turn.SessionID, turn.TurnID, event.FileChange{CallID: "p", Status: event.ChangeApplied,
		Changes: []event.FileChangeEntry{{URI: "file:///ws/a.go", Kind: event.ChangeUpdate, Additions: 1, Deletions: 1}}})
	h.agent.emit(turn.SessionID, turn.TurnID, event.Message{ItemID: "m2", Text: "Fixed the greeting."})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnCompleted{Status: event.StatusCompleted, LastMessage: "Fixed the greeting."})

	final := waitMessage(t, h, protocol.MessageTypeInfo, "Fixed the greeting.")
	path := filepath.Join(dir, turn.SessionID+".md")
	want := "Agent: Done (1 tool call, 1 file changed)\nFixed the greeting.\nConversation: " + path
	if final != want {
		t.Errorf("final message %q, want %q", final, want)
	}
	var got []string
	for _, m := range h.ed.Messages() {
		got = append(got, map[protocol.MessageType]string{protocol.MessageTypeInfo: "info", protocol.MessageTypeLog: "log"}[m.Type]+" "+m.Message)
	}
	wantAll := []string{
		"info Agent: working on “Fix the greeting” (code action “Agent: Stop” interrupts it)",
		"log Looking at it.",
		"log Second line",
		"log third",
		"log Agent: go test ./...",
		"info " + want,
	}
	if strings.Join(got, "\n") != strings.Join(wantAll, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantAll, "\n"))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## You\n\nFix the greeting\nplease\n", "## Agent\n\nLooking at it.\nSecond line\nthird\n",
		"- go test ./...\n", "- update /ws/a.go (+1 -1)\n", "Fixed the greeting.\n", "_Turn completed._\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("transcript lacks %q:\n%s", want, b)
		}
	}
}

// TestPlainClientWithProgress: a client with progress gets no start
// message (the progress shows it) but still the answer, shortened when
// long, with a pointer to the whole of it when there is a transcript.
func TestPlainClientWithProgress(t *testing.T) {
	dir := t.TempDir()
	for _, transcripts := range []string{"", dir} {
		h := newHarness(t, withTranscripts(transcripts))
		h.initialize(editor.Options{Progress: true})
		turn := h.startTurn(map[string]any{"prompt": "go"})
		h.agent.emit(turn.SessionID, turn.TurnID, event.TurnStarted{Prompt: "go"})
		long := strings.Repeat("a line of the answer\n", 40)
		h.agent.emit(turn.SessionID, turn.TurnID, event.TurnCompleted{Status: event.StatusCompleted, LastMessage: long})
		final := waitMessage(t, h, protocol.MessageTypeInfo, "Agent: Done")
		want := "\n… (shortened)"
		if transcripts != "" {
			want = "\n… the whole answer and conversation: " + filepath.Join(dir, turn.SessionID+".md")
		}
		if strings.Count(final, "a line of the answer") != maxNoticeLines || !strings.HasSuffix(final, want) {
			t.Errorf("long answer shown as %q, want it to end with %q", final, want)
		}
		checkNoStartMessage(t, h)
	}
}

func checkNoStartMessage(t *testing.T, h *harness) {
	t.Helper()
	for _, m := range h.ed.Messages() {
		if strings.Contains(m.Message, "working on") {
			t.Errorf("start message to a client with progress: %q", m.Message)
		}
	}
}

// TestOptedInClientGetsNoMessages: a client that takes agent/event gets
// none of the messages.
func TestOptedInClientGetsNoMessages(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnStarted{Prompt: "go"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.MessageDelta{ItemID: "m", Delta: "hi\n"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnCompleted{Status: event.StatusCompleted, LastMessage: "hi"})
	if _, err := h.ed.WaitTurnCompleted(h.ctx, turn.TurnID); err != nil {
		t.Fatal(err)
	}
	if m := h.ed.Messages(); len(m) != 0 {
		t.Errorf("messages to an opted-in client: %+v", m)
	}
}

// TestOneConversationPerWorkspace is protocol section 7.1: code actions
// and agent.startTurn without a session continue the current session;
// agent.newSession makes a new current one; a turn naming its session
// makes it current; agent/startTurn without one does not touch it.
func TestOneConversationPerWorkspace(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	finish := func(r map[string]any) {
		h.agent.complete(r["sessionId"].(string), r["turnId"].(string), event.StatusCompleted)
	}
	first := execute(t, h, commandStartTurn, map[string]any{"prompt": "Fix this"})
	finish(first)
	second := execute(t, h, commandStartTurn, map[string]any{"prompt": "Explain this"})
	finish(second)
	if first["sessionId"] != second["sessionId"] {
		t.Fatalf("two code actions, two sessions: %v, %v", first["sessionId"], second["sessionId"])
	}
	// agent/startTurn without a session: a new session, not current.
	other := h.startTurn(map[string]any{"prompt": "elsewhere"})
	h.agent.complete(other.SessionID, other.TurnID, event.StatusCompleted)
	third := execute(t, h, commandStartTurn, map[string]any{"prompt": "again"})
	finish(third)
	if third["sessionId"] != first["sessionId"] {
		t.Errorf("agent/startTurn changed the current session to %v", third["sessionId"])
	}
	// A turn naming a session makes it current.
	named := execute(t, h, commandStartTurn, map[string]any{"sessionId": other.SessionID, "prompt": "here"})
	finish(named)
	if next := execute(t, h, commandStartTurn, map[string]any{"prompt": "next"}); next["sessionId"] != other.SessionID {
		t.Errorf("after a turn in %s the current session is %v", other.SessionID, next["sessionId"])
	} else {
		finish(next)
	}
	// agent.newSession starts a fresh current one, and so does agent/newSession.
	fresh := execute(t, h, commandNewSession)
	if next := execute(t, h, commandStartTurn, map[string]any{"prompt": "fresh"}); next["sessionId"] != fresh["sessionId"] {
		t.Errorf("after agent.newSession the turn went to %v, want %v", next["sessionId"], fresh["sessionId"])
	} else {
		finish(next)
	}
	var viaRequest sessionResult
	if err := h.ed.Request(h.ctx, methodNewSession, map[string]any{}, &viaRequest); err != nil {
		t.Fatal(err)
	}
	if next := execute(t, h, commandStartTurn, map[string]any{"prompt": "fresh"}); next["sessionId"] != viaRequest.SessionID {
		t.Errorf("after agent/newSession the turn went to %v, want %v", next["sessionId"], viaRequest.SessionID)
	}
}

// TestShowConversation opens the transcript with window/showDocument where
// the client supports it, and names its path in a message elsewhere.
func TestShowConversation(t *testing.T) {
	for _, showDocument := range []bool{true, false} {
		dir := t.TempDir()
		h := newHarness(t, withTranscripts(dir))
		h.initialize(editor.Options{ShowDocument: showDocument})
		if res := execute(t, h, commandShowConversation); res["uri"] != "" {
			t.Errorf("showConversation before any turn = %v", res)
		}
		waitMessage(t, h, protocol.MessageTypeInfo, "no conversation yet")
		r := execute(t, h, commandStartTurn, map[string]any{"prompt": "Explain"})
		sid, tid := r["sessionId"].(string), r["turnId"].(string)
		h.agent.emit(sid, tid, event.TurnStarted{Prompt: "Explain"})
		h.agent.complete(sid, tid, event.StatusCompleted)
		path := filepath.Join(dir, sid+".md")
		res := execute(t, h, commandShowConversation)
		if res["uri"] != string(uri.File(path)) || res["shown"] != showDocument {
			t.Errorf("showDocument %v: showConversation = %v", showDocument, res)
		}
		if showDocument {
			if shown := h.ed.Shown(); len(shown) != 1 || shown[0] != string(uri.File(path)) {
				t.Errorf("shown %v", shown)
			}
		} else {
			waitMessage(t, h, protocol.MessageTypeInfo, "Agent: the conversation is in "+path)
		}
		if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "## You\n\nExplain\n") {
			t.Errorf("transcript %q, %v", b, err)
		}
	}
}

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestPlainClientKeepsOneConversation drives the server as an editor with
// no agent-specific code: two code-action turns share one session (the
// second model request carries the first turn, and "Allow always" from
// the first covers the second's command), each answer arrives as a
// showMessage naming the transcript, which holds both turns.
func TestPlainClientKeepsOneConversation(t *testing.T) {
	var asked atomic.Int32
	cfg := editor.Config{ShowMessageRequest: func(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		asked.Add(1)
		return &protocol.MessageActionItem{Title: "Allow always"}, nil
	}}
	s := startWith(t, nil, cfg, editor.Options{ApplyEdit: true, MessageActionItems: true,
		InitializationOptions: map[string]any{"approvalPolicy": "untrusted"}},
		fakemodel.Answer(shellCall("c1", "touch", "made")),
		fakemodel.Say("First answer."),
		fakemodel.Answer(shellCall("c2", "touch", "made")),
		fakemodel.Say("Second answer."),
	)
	file := filepath.Join(s.dir, "a.txt")
	if err := os.WriteFile(file, []byte("héllo\nwörld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Open(s.ctx, string(uri.File(file)), "plaintext", "héllo\nwörld\n"); err != nil {
		t.Fatal(err)
	}
	codeAction := func(title string) {
		t.Helper()
		var actions []protocol.CommandOrCodeAction
		at := protocol.Position{Line: 1, Character: 2}
		if err := s.ed.Request(s.ctx, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(file)},
			Range:        protocol.Range{Start: at, End: at},
		}, &actions); err != nil {
			t.Fatal(err)
		}
		for _, a := range actions {
			if ca, ok := a.(*protocol.CodeAction); ok && ca.Title == title {
				if err := s.ed.Request(s.ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
					Command: ca.Command.Command, Arguments: ca.Command.Arguments}, nil); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		t.Fatalf("no %q among the code actions", title)
	}
	answer := func(text string) string {
		t.Helper()
		m, err := s.ed.WaitMessage(s.ctx, func(m protocol.ShowMessageParams) bool {
			return m.Type == protocol.MessageTypeInfo && strings.Contains(m.Message, text)
		})
		if err != nil {
			t.Fatalf("no message with %q: %v (messages %+v)", text, err, s.ed.Messages())
		}
		return m.Message
	}
	codeAction("Agent: Fix this")
	first := answer("First answer.")
	codeAction("Agent: Explain this")
	answer("Second answer.")

	if n := asked.Load(); n != 1 {
		t.Errorf("asked %d times; Allow always should carry over to the second code action", n)
	}
	reqs := s.model.Requests()
	if len(reqs) != 4 || !strings.Contains(string(reqs[2].Body), "Fix this code.") || !strings.Contains(string(reqs[2].Body), "First answer.") {
		t.Errorf("the second turn's request does not carry the first turn")
	}
	if !strings.HasPrefix(first, "Agent: Done (1 tool call)\nFirst answer.\nConversation: ") {
		t.Fatalf("first answer message %q", first)
	}
	path := strings.TrimPrefix(first[strings.LastIndex(first, "\n")+1:], "Conversation: ")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), "## You") != 2 || !strings.Contains(string(b), "Second answer.") {
		t.Errorf("transcript:\n%s", b)
	}
	var logged []string
	for _, m := range s.ed.Messages() {
		if m.Type == protocol.MessageTypeLog {
			logged = append(logged, m.Message)
		}
	}
	if !strings.Contains(strings.Join(logged, "\n"), "First answer.") {
		t.Errorf("the streamed answer was not logged: %q", logged)
	}
}

// TestServeIsQuietByDefault: without --log-level, a whole turn writes
// nothing to stderr (Neovim records each stderr line as an error).
func TestServeIsQuietByDefault(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := fakemodel.New(fakemodel.Say("hello"))
	defer m.Close()
	dir := t.TempDir()
	cmd := exec.Command(binary)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "XDG_STATE_HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ed, err := editor.Start(cmd, editor.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ed.Disconnect()
		ed.WaitExit(ctx) // before the state folder is removed
	}()
	if _, err := ed.Initialize(ctx, editor.Options{Events: true, WorkspaceFolders: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	var turn started
	if err := ed.Request(ctx, "agent/startTurn", map[string]any{"prompt": "hi"}, &turn); err != nil {
		t.Fatal(err)
	}
	if _, err := ed.WaitTurnCompleted(ctx, turn.TurnID); err != nil {
		t.Fatal(err)
	}
	if err := ed.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if code, err := ed.Exit(ctx); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

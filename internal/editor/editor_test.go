package editor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/lsp"
)

// TestMain lets the test binary play the language server process for
// TestStartProcess.
func TestMain(m *testing.M) {
	if os.Getenv("EDITOR_TEST_SERVE") == "1" {
		code, err := lsp.Serve(context.Background(), stdio{os.Stdin, os.Stdout}, lsp.Options{Version: "test"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

type stdio struct {
	io.ReadCloser
	io.WriteCloser
}

func (s stdio) Close() error { return errors.Join(s.ReadCloser.Close(), s.WriteCloser.Close()) }

func TestStartProcess(t *testing.T) {
	for _, shutdown := range []bool{true, false} {
		t.Run(fmt.Sprintf("shutdown=%v", shutdown), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "EDITOR_TEST_SERVE=1")
			cmd.Stderr = t.Output()
			ed, err := editor.Start(cmd, editor.Config{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ed.Initialize(ctx, editor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.ServerInfo.Name != "agent-ls" {
				t.Errorf("server info %+v", res.ServerInfo)
			}
			want := 1
			if shutdown {
				if err := ed.Shutdown(ctx); err != nil {
					t.Fatal(err)
				}
				want = 0
			}
			code, err := ed.Exit(ctx)
			if err != nil || code != want {
				t.Errorf("exit status %d, %v; want %d", code, err, want)
			}
		})
	}
}

// peer is a minimal server on the other end of a pipe: it answers
// initialize, records document notifications in order, and lets the test
// call the editor.
type peer struct {
	conn jsonrpc2.Conn

	mu      sync.Mutex
	changes []protocol.DidChangeTextDocumentParams
	opened  []string
	closed  []string
}

func newPeer(t *testing.T, cfg editor.Config) (*peer, *editor.Editor, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	a, b := net.Pipe()
	p := &peer{conn: jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(a))}
	p.conn.Go(ctx, p.handle) // inline: notifications are recorded in wire order
	cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	ed := editor.Connect(b, cfg)
	t.Cleanup(func() {
		ed.Disconnect()
		p.conn.Close()
	})
	if _, err := ed.Initialize(ctx, editor.Options{ApplyEdit: true, DocumentChanges: true}); err != nil {
		t.Fatal(err)
	}
	return p, ed, ctx
}

func (p *peer) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch req.Method() {
	case protocol.MethodInitialize:
		return json.RawMessage(`{"capabilities":{}}`), nil
	case protocol.MethodTextDocumentDidChange:
		var c protocol.DidChangeTextDocumentParams
		if err := protocol.Unmarshal(req.Params(), &c); err != nil {
			return nil, nil
		}
		p.changes = append(p.changes, c)
	case protocol.MethodTextDocumentDidOpen:
		var o protocol.DidOpenTextDocumentParams
		protocol.Unmarshal(req.Params(), &o)
		p.opened = append(p.opened, string(o.TextDocument.URI))
	case protocol.MethodTextDocumentDidClose:
		var c protocol.DidCloseTextDocumentParams
		protocol.Unmarshal(req.Params(), &c)
		p.closed = append(p.closed, string(c.TextDocument.URI))
	}
	return nil, nil
}

func (p *peer) applyEdit(ctx context.Context, edit protocol.WorkspaceEdit) (*protocol.ApplyWorkspaceEditResult, error) {
	var res protocol.ApplyWorkspaceEditResult
	err := protocol.Call(ctx, p.conn, protocol.MethodWorkspaceApplyEdit, &protocol.ApplyWorkspaceEditParams{Edit: edit}, &res)
	return &res, err
}

func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

func TestApplyEditToAnOpenDocument(t *testing.T) {
	p, ed, ctx := newPeer(t, editor.Config{})
	doc := "file:///ws/main.go"
	if err := ed.Open(ctx, doc, "go", "one\ntwo 😀\nthree\n"); err != nil {
		t.Fatal(err)
	}
	version := int32(1)
	edit := protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(doc)}, Version: &version,
		},
		Edits: []protocol.TextDocumentEditElement{
			&protocol.TextEdit{Range: rng(0, 0, 0, 3), NewText: "ONE"},
			&protocol.TextEdit{Range: rng(1, 6, 1, 6), NewText: "!"}, // after the emoji (UTF-16)
			&protocol.TextEdit{Range: rng(2, 0, 3, 0), NewText: ""},
			&protocol.TextEdit{Range: rng(3, 0, 3, 0), NewText: "a"},
			&protocol.TextEdit{Range: rng(3, 0, 3, 0), NewText: "b"},
		},
	}}}
	res, err := p.applyEdit(ctx, edit)
	if err != nil || !res.Applied {
		t.Fatalf("applyEdit = %+v, %v", res, err)
	}
	const want = "ONE\ntwo 😀!\nab"
	text, v, _ := ed.Text(doc)
	if text != want || v != 2 {
		t.Errorf("editor text %q version %d", text, v)
	}
	// The server hears the edit as one didChange that yields the same text.
	p.mu.Lock()
	changes := p.changes
	p.mu.Unlock()
	if len(changes) != 1 || changes[0].TextDocument.Version != 2 {
		t.Fatalf("didChange %+v", changes)
	}
	if len(ed.Edits()) != 1 {
		t.Errorf("recorded edits %d", len(ed.Edits()))
	}

	// The same edit again names a stale version: refused, nothing changes.
	res, err = p.applyEdit(ctx, edit)
	if err != nil || res.Applied || res.FailureReason == nil {
		t.Fatalf("stale applyEdit = %+v, %v", res, err)
	}
	if text, _, _ := ed.Text(doc); text != want {
		t.Errorf("a refused edit changed the text: %q", text)
	}
}

func TestApplyEditOnDisk(t *testing.T) {
	p, _, ctx := newPeer(t, editor.Config{})
	dir := t.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := p.applyEdit(ctx, protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{
		uri.File(file): {{Range: rng(0, 6, 0, 11), NewText: "there"}},
	}})
	if err != nil || !res.Applied {
		t.Fatalf("applyEdit = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(file); string(b) != "hello there\n" {
		t.Errorf("file %q", b)
	}

	created, moved := filepath.Join(dir, "sub", "new.txt"), filepath.Join(dir, "moved.txt")
	res, err = p.applyEdit(ctx, protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
		&protocol.CreateFile{Kind: "create", URI: uri.File(created)},
		&protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(created)}},
			Edits:        []protocol.TextDocumentEditElement{&protocol.TextEdit{NewText: "new\n"}},
		},
		&protocol.RenameFile{Kind: "rename", OldURI: uri.File(file), NewURI: uri.File(moved)},
		&protocol.DeleteFile{Kind: "delete", URI: uri.File(filepath.Join(dir, "gone.txt")), Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: ptr(true)}},
	}})
	if err != nil || !res.Applied {
		t.Fatalf("resource operations = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(created); string(b) != "new\n" {
		t.Errorf("created file %q", b)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("renamed file still there: %v", err)
	}
	if b, _ := os.ReadFile(moved); string(b) != "hello there\n" {
		t.Errorf("moved file %q", b)
	}

	// Creating over an existing file without overwrite fails and says
	// which change.
	res, err = p.applyEdit(ctx, protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
		&protocol.CreateFile{Kind: "create", URI: uri.File(moved)},
	}})
	if err != nil || res.Applied || res.FailedChange == nil || *res.FailedChange != 0 {
		t.Errorf("create over a file = %+v, %v", res, err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestServerRequests(t *testing.T) {
	var approvals []string
	p, _, ctx := newPeer(t, editor.Config{
		ShowMessageChoice: "Reject",
		Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
			approvals = append(approvals, method)
			return map[string]string{"decision": "allowOnce"}, nil
		},
		NeverAnswer: []string{"window/showDocument"},
	})

	var choice *protocol.MessageActionItem
	err := protocol.Call(ctx, p.conn, protocol.MethodWindowShowMessageRequest, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: "run rm?",
		Actions: []protocol.MessageActionItem{{Title: "Allow once"}, {Title: "Reject"}},
	}, &choice)
	if err != nil || choice == nil || choice.Title != "Reject" {
		t.Errorf("showMessageRequest = %+v, %v", choice, err)
	}

	var decision map[string]string
	if err := protocol.Call(ctx, p.conn, "agent/requestApproval", map[string]any{"approvalId": "a"}, &decision); err != nil || decision["decision"] != "allowOnce" {
		t.Errorf("agent/requestApproval = %v, %v", decision, err)
	}
	if len(approvals) != 1 || approvals[0] != "agent/requestApproval" {
		t.Errorf("scripted handler saw %v", approvals)
	}

	// A request the editor never answers: the caller's deadline ends it.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	err = protocol.Call(short, p.conn, protocol.MethodWindowShowDocument, &protocol.ShowDocumentParams{URI: "file:///x"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("unanswered request: %v", err)
	}
	// The editor is still there.
	if err := protocol.Call(ctx, p.conn, protocol.MethodWindowWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: protocol.String("t")}, nil); err != nil {
		t.Errorf("progress create: %v", err)
	}
}

func TestEventsAndProgressAreRecordedInOrder(t *testing.T) {
	p, ed, ctx := newPeer(t, editor.Config{})
	stream := ed.EventStream()
	for i := range 100 {
		if err := p.conn.Notify(ctx, "agent/event", json.RawMessage(fmt.Sprintf(
			`{"sessionId":"s","turnId":"t","seq":%d,"type":"messageDelta","itemId":"m","delta":"%d"}`, i+1, i))); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100 {
		ev, err := stream.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Seq != int64(i+1) || ev.Delta != fmt.Sprint(i) || ev.Type != "messageDelta" {
			t.Fatalf("event %d: %+v", i, ev)
		}
	}
	p.conn.Notify(ctx, "agent/event", json.RawMessage(`{"sessionId":"s","turnId":"t","seq":101,"type":"turnCompleted","status":"completed"}`))
	done, err := ed.WaitTurnCompleted(ctx, "t")
	if err != nil || done.Status != "completed" {
		t.Errorf("turnCompleted %+v, %v", done, err)
	}

	value, _ := json.Marshal(map[string]any{"kind": "begin", "title": "Agent", "message": "m", "cancellable": true})
	p.conn.Notify(ctx, protocol.MethodProgress, &protocol.ProgressParams{Token: protocol.Integer(7), Value: value})
	got, err := ed.WaitProgress(ctx, func(p editor.Progress) bool { return p.Kind == "begin" })
	if err != nil || got != (editor.Progress{Token: "7", Kind: "begin", Title: "Agent", Message: "m", Cancellable: true}) {
		t.Errorf("progress %+v, %v", got, err)
	}

	// Waits end with the connection.
	p.conn.Close()
	if _, err := ed.WaitEvent(ctx, func(editor.Event) bool { return false }); !errors.Is(err, editor.ErrClosed) {
		t.Errorf("wait after the connection ended: %v", err)
	}
}

package acp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/tools"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// fsClient is an editor over the disk: fs/read_text_file answers its
// unsaved buffers, else the file on disk; a file it has neither of is
// answered with an error (as acpx does) or, with emptyForMissing, with
// empty content (as codecompanion does). fs/write_text_file writes the
// disk unless refuse says no to that write (nth: the path's writes so
// far, this one included), or with unsaved, a buffer only.
type fsClient struct {
	recorder
	mu              sync.Mutex
	buffers         map[string]string
	emptyForMissing bool
	unsaved         bool
	refuse          func(path string, nth int) bool
	// failWith, when set, is the error a refused write gets instead of
	// a refusal: a write that failed.
	failWith string
	reads    []string
	writes   map[string]int
}

func (c *fsClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.reads = append(c.reads, p.Path)
	text, ok := c.buffers[p.Path]
	empty := c.emptyForMissing
	c.mu.Unlock()
	if ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	switch {
	case err == nil:
		return sdk.ReadTextFileResponse{Content: string(data)}, nil
	case empty:
		return sdk.ReadTextFileResponse{}, nil
	}
	return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "Resource not found: " + p.Path}
}

func (c *fsClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	if c.writes == nil {
		c.writes = map[string]int{}
	}
	c.writes[p.Path]++
	refused := c.refuse != nil && c.refuse(p.Path, c.writes[p.Path])
	unsaved := c.unsaved
	failWith := c.failWith
	c.mu.Unlock()
	if refused && failWith != "" {
		return sdk.WriteTextFileResponse{}, &sdk.RequestError{Code: -32603, Message: failWith}
	}
	if refused {
		return sdk.WriteTextFileResponse{}, &sdk.RequestError{Code: -32603, Message: "the user rejected the write"}
	}
	if unsaved {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.buffers == nil {
			c.buffers = map[string]string{}
		}
		c.buffers[p.Path] = p.Content
		return sdk.WriteTextFileResponse{}, nil
	}
	return sdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

// asked reports whether the client was asked to read path.
func (c *fsClient) asked(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.reads, path)
}

// fsRun is the server in-process with an fsClient that offers fs/*, one
// session open in dir, and the wire the client received.
type fsRun struct {
	conn    *sdk.ClientSideConnection
	ctx     context.Context
	files   agent.FileReader
	fe      agent.Frontend
	dir     string
	session sdk.SessionId

	mu   sync.Mutex
	wire strings.Builder
}

func startFS(t *testing.T, c *fsClient) *fsRun {
	t.Helper()
	r := &fsRun{dir: t.TempDir()}
	// The temporary directory may lie behind a link (macOS): the paths
	// the agent uses are resolved.
	if d, err := filepath.EvalSymlinks(r.dir); err == nil {
		r.dir = d
	}
	cfgs := make(chan Config, 1)
	ctx, fromClient, toClient := servePipes(t, Options{NewAgent: func(cfg Config) (Agent, error) {
		cfgs <- cfg
		return &fakeAgent{fe: cfg.Frontend}, nil
	}})
	r.ctx = ctx
	r.conn = sdk.NewClientSideConnection(c, fromClient, io.TeeReader(toClient, lockedWriter{&r.mu, &r.wire}))
	r.conn.SetLogger(slog.New(slog.DiscardHandler))
	if _, err := r.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatal(err)
	}
	res, err := r.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: r.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	r.session = res.SessionId
	cfg := <-cfgs
	r.files, r.fe = cfg.Files, cfg.Frontend
	if r.files == nil {
		t.Fatal("a client with fs/read_text_file gets no file view")
	}
	return r
}

// name has the client name paths in a prompt, as resource links (the
// fake agent runs no turn: the prompt fails after that).
func (r *fsRun) name(t *testing.T, paths ...string) {
	t.Helper()
	var blocks []sdk.ContentBlock
	for _, p := range paths {
		blocks = append(blocks, sdk.ResourceLinkBlock(filepath.Base(p), "file://"+p))
	}
	if _, err := r.conn.Prompt(r.ctx, sdk.PromptRequest{SessionId: r.session, Prompt: blocks}); err == nil || !strings.Contains(err.Error(), "no turns here") {
		t.Fatalf("prompt: %v", err)
	}
}

// wireMessage is a message from the agent to the client, as sent.
type wireMessage struct {
	Method string `json:"method"`
	Params struct {
		Path    string `json:"path"`
		Content string `json:"content"`
		Update  struct {
			SessionUpdate string `json:"sessionUpdate"`
			ToolCallID    string `json:"toolCallId"`
			Title         string `json:"title"`
			Kind          string `json:"kind"`
			Status        string `json:"status"`
			Content       []struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
			Locations []struct {
				Path string `json:"path"`
			} `json:"locations"`
		} `json:"update"`
	} `json:"params"`
}

// sent are the messages the client received so far, in wire order.
func (r *fsRun) sent(t *testing.T) []wireMessage {
	t.Helper()
	r.mu.Lock()
	lines := strings.Split(strings.TrimSpace(r.wire.String()), "\n")
	r.mu.Unlock()
	var out []wireMessage
	for _, l := range lines {
		var m wireMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("the agent sent %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestClientFilesAskOnlyForFilesThatMayExist: the file view asks the
// client about files on disk and files the client named; a file that is
// neither (AGENTS.md where there is none) is read from the disk, which
// says it does not exist, and the client never sees the question (acpx
// shows an error for each). A named file the client answers with an
// error does not exist either.
func TestClientFilesAskOnlyForFilesThatMayExist(t *testing.T) {
	c := &fsClient{}
	r := startFS(t, c)
	at := func(name string) string { return filepath.Join(r.dir, name) }
	os.WriteFile(at("on-disk.txt"), []byte("saved\n"), 0o644)
	c.mu.Lock()
	c.buffers = map[string]string{at("on-disk.txt"): "unsaved\n", at("draft.txt"): "not saved yet\n"}
	c.mu.Unlock()

	for _, name := range []string{"AGENTS.override.md", "AGENTS.md", "missing.txt"} {
		if data, err := r.files.ReadFile(at(name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile(%s) = %q, %v; want it not to exist", name, data, err)
		}
		if doc, ok := r.files.Document(at(name)); ok {
			t.Errorf("Document(%s) = %+v", name, doc)
		}
		if c.asked(at(name)) {
			t.Errorf("the client was asked for %s, which is not on disk and which it never named", name)
		}
	}
	if _, ok := r.files.Document(r.dir); ok || c.asked(r.dir) {
		t.Errorf("a directory is a document, or the client was asked for it")
	}
	if data, err := r.files.ReadFile(at("on-disk.txt")); err != nil || string(data) != "unsaved\n" {
		t.Errorf("ReadFile(on-disk.txt) = %q, %v; want the client's buffer", data, err)
	}

	// A file not on disk that the client named may be a buffer not saved
	// yet: the client is asked.
	if _, ok := r.files.Document(at("draft.txt")); ok {
		t.Fatal("draft.txt is a document before the client named it")
	}
	r.name(t, at("draft.txt"), at("gone.txt"))
	if doc, ok := r.files.Document(at("draft.txt")); !ok || doc.Text != "not saved yet\n" || !c.asked(at("draft.txt")) {
		t.Errorf("Document(draft.txt) = %+v, %v; want the client's buffer", doc, ok)
	}
	if data, err := r.files.ReadFile(at("draft.txt")); err != nil || string(data) != "not saved yet\n" {
		t.Errorf("ReadFile(draft.txt) = %q, %v", data, err)
	}
	// gone.txt is named but the client has no such file either.
	if data, err := r.files.ReadFile(at("gone.txt")); !errors.Is(err, fs.ErrNotExist) || !c.asked(at("gone.txt")) {
		t.Errorf("ReadFile(gone.txt) = %q, %v; want the client asked and the file not to exist", data, err)
	}
	if _, ok := r.files.Document(at("gone.txt")); ok {
		t.Error("gone.txt is a document")
	}
}

// TestClientFilesEmptyAnswerForMissingFile: a client that answers a
// missing file with empty content does not make it an empty file:
// read_file says it does not exist, in the words of the disk's read. A
// file on disk the client has empty is empty.
func TestClientFilesEmptyAnswerForMissingFile(t *testing.T) {
	c := &fsClient{emptyForMissing: true}
	r := startFS(t, c)
	missing, empty := filepath.Join(r.dir, "missing.txt"), filepath.Join(r.dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	r.name(t, missing)

	if data, err := r.files.ReadFile(missing); !errors.Is(err, fs.ErrNotExist) || !c.asked(missing) {
		t.Errorf("ReadFile(missing.txt) = %q, %v; want the client asked and the file not to exist", data, err)
	}
	if doc, ok := r.files.Document(missing); ok {
		t.Errorf("Document(missing.txt) = %+v", doc)
	}
	if doc, ok := r.files.Document(empty); !ok || doc.Text != "" {
		t.Errorf("Document(empty.txt) = %+v, %v; want an empty document", doc, ok)
	}

	read := func(files tools.FileView, name string) (string, error) {
		out, err := tools.ReadFile{}.Handle(r.ctx, &tools.Env{Cwd: r.dir, Files: files},
			&tools.Call{Name: "read_file", Type: tools.Function, Arguments: []byte(`{"file_path":"` + name + `"}`)})
		return out.Text, err
	}
	_, diskErr := read(tools.DiskView{}, "missing.txt")
	text, err := read(r.files, "missing.txt")
	if err == nil || diskErr == nil || err.Error() != diskErr.Error() {
		t.Errorf("read_file missing.txt through the client: %q, %v; want the disk's error %v", text, err, diskErr)
	}
}

// TestRestoreAfterRefusedWriteIsShown: when the client refuses the second
// file of a change set, the first gets its old content back through
// fs/write_text_file, and the client has a tool call that says so
// (title, text, the file) before that write, then the call completed.
func TestRestoreAfterRefusedWriteIsShown(t *testing.T) {
	c := &fsClient{}
	r := startFS(t, c)
	a, b := filepath.Join(r.dir, "a.txt"), filepath.Join(r.dir, "b.txt")
	os.WriteFile(a, []byte("a\n"), 0o644)
	os.WriteFile(b, []byte("b\n"), 0o644)
	c.mu.Lock()
	c.refuse = func(path string, _ int) bool { return path == b }
	c.mu.Unlock()
	cs := &workspace.ChangeSet{Changes: []workspace.FileChange{
		{Kind: workspace.Update, Path: a, OldContent: []byte("a\n"), NewContent: []byte("A\n")},
		{Kind: workspace.Update, Path: b, OldContent: []byte("b\n"), NewContent: []byte("B\n")},
	}}
	applied, err := r.fe.ApplyChanges(r.ctx, cs)
	var rej *workspace.RejectedError
	if applied || !errors.As(err, &rej) || !strings.Contains(err.Error(), "could not write "+b) || !strings.Contains(err.Error(), a+" got their content before the change back") {
		t.Fatalf("ApplyChanges = %v, %v", applied, err)
	}
	if data, _ := os.ReadFile(a); string(data) != "a\n" {
		t.Errorf("a.txt = %q after the restore", data)
	}

	msgs := waitSent(t, r, func(m wireMessage) bool { return m.Params.Update.Status == "completed" })
	var writes []string
	call, restoreWrite := -1, -1
	for i, m := range msgs {
		switch {
		case m.Method == "fs/write_text_file":
			writes = append(writes, filepath.Base(m.Params.Path)+"="+m.Params.Content)
			if m.Params.Path == a && m.Params.Content == "a\n" {
				restoreWrite = i
			}
		case m.Params.Update.SessionUpdate == "tool_call" && strings.HasPrefix(m.Params.Update.Title, "Restore"):
			call = i
		}
	}
	if !slices.Equal(writes, []string{"a.txt=A\n", "b.txt=B\n", "a.txt=a\n"}) {
		t.Fatalf("writes %q", writes)
	}
	if call < 0 || call > restoreWrite {
		t.Fatalf("the restore's tool call (message %d) does not come before its write (message %d)", call, restoreWrite)
	}
	u := msgs[call].Params.Update
	if u.Title != "Restore a.txt: the change set was refused" || u.Kind != "edit" || u.Status != "in_progress" ||
		len(u.Locations) != 1 || u.Locations[0].Path != a || len(u.Content) != 1 ||
		!strings.Contains(u.Content[0].Content.Text, "puts back the content a.txt had before the change") ||
		!strings.Contains(u.Content[0].Content.Text, "refused the change set's next file, b.txt") {
		t.Errorf("the restore's tool call: %+v", u)
	}
	end := msgs[len(msgs)-1].Params.Update
	if end.SessionUpdate != "tool_call_update" || end.ToolCallID != u.ToolCallID {
		t.Errorf("the call ends with %+v", end)
	}
}

// TestRestoreAfterFailedWriteSaysFailed: when the client fails to write
// the second file (an error, not a refusal), the restore's tool call
// says the change set could not be written, not that it was refused.
func TestRestoreAfterFailedWriteSaysFailed(t *testing.T) {
	c := &fsClient{failWith: "no space left on device"}
	r := startFS(t, c)
	a, b := filepath.Join(r.dir, "a.txt"), filepath.Join(r.dir, "b.txt")
	os.WriteFile(a, []byte("a\n"), 0o644)
	os.WriteFile(b, []byte("b\n"), 0o644)
	c.mu.Lock()
	c.refuse = func(path string, _ int) bool { return path == b }
	c.mu.Unlock()
	cs := &workspace.ChangeSet{Changes: []workspace.FileChange{
		{Kind: workspace.Update, Path: a, OldContent: []byte("a\n"), NewContent: []byte("A\n")},
		{Kind: workspace.Update, Path: b, OldContent: []byte("b\n"), NewContent: []byte("B\n")},
	}}
	applied, err := r.fe.ApplyChanges(r.ctx, cs)
	var rej *workspace.RejectedError
	if applied || !errors.As(err, &rej) || rej.Declined || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("ApplyChanges = %v, %v", applied, err)
	}
	msgs := waitSent(t, r, func(m wireMessage) bool { return m.Params.Update.Status == "completed" })
	call := -1
	for i := range msgs {
		if msgs[i].Params.Update.SessionUpdate == "tool_call" && strings.HasPrefix(msgs[i].Params.Update.Title, "Restore") {
			call = i
		}
	}
	if call < 0 {
		t.Fatal("no restore tool call")
	}
	u := msgs[call].Params.Update
	if u.Title != "Restore a.txt: the change set could not be written" || len(u.Content) != 1 ||
		!strings.Contains(u.Content[0].Content.Text, "could not write the change set's next file, b.txt") {
		t.Errorf("the restore's tool call: %+v", u)
	}
}

// TestRestoreRefusedTooIsShownFailed: a restore the client refuses as
// well ends its tool call failed, and the model is told a.txt holds the
// new content.
func TestRestoreRefusedTooIsShownFailed(t *testing.T) {
	c := &fsClient{}
	r := startFS(t, c)
	a, b := filepath.Join(r.dir, "a.txt"), filepath.Join(r.dir, "b.txt")
	os.WriteFile(a, []byte("a\n"), 0o644)
	c.mu.Lock()
	c.refuse = func(path string, nth int) bool { return path == b || nth > 1 }
	c.mu.Unlock()
	_, err := r.fe.ApplyChanges(r.ctx, &workspace.ChangeSet{Changes: []workspace.FileChange{
		{Kind: workspace.Update, Path: a, OldContent: []byte("a\n"), NewContent: []byte("A\n")},
		{Kind: workspace.Add, Path: b, NewContent: []byte("B\n")},
	}})
	if err == nil || !strings.Contains(err.Error(), "hold the NEW content and could not be restored: "+a) {
		t.Fatalf("ApplyChanges: %v", err)
	}
	msgs := waitSent(t, r, func(m wireMessage) bool { return m.Params.Update.Status == "failed" })
	end := msgs[len(msgs)-1].Params.Update
	if len(end.Content) != 2 || !strings.Contains(end.Content[1].Content.Text, "a.txt keeps the change set's new content") {
		t.Errorf("the failed restore: %+v", end)
	}
}

// TestRemoveOfCreatedFileIsShown: a file the change set created before
// the client refused the next one is removed from the disk, and the
// client is shown that removal as a tool call of its own.
func TestRemoveOfCreatedFileIsShown(t *testing.T) {
	c := &fsClient{}
	r := startFS(t, c)
	n, b := filepath.Join(r.dir, "new.txt"), filepath.Join(r.dir, "b.txt")
	os.WriteFile(b, []byte("b\n"), 0o644)
	c.mu.Lock()
	c.refuse = func(path string, _ int) bool { return path == b }
	c.mu.Unlock()
	_, err := r.fe.ApplyChanges(r.ctx, &workspace.ChangeSet{Changes: []workspace.FileChange{
		{Kind: workspace.Add, Path: n, NewContent: []byte("N\n")},
		{Kind: workspace.Update, Path: b, OldContent: []byte("b\n"), NewContent: []byte("B\n")},
	}})
	if err == nil {
		t.Fatal("ApplyChanges succeeded")
	}
	if _, err := os.Stat(n); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("new.txt after the refusal: %v", err)
	}
	msgs := waitSent(t, r, func(m wireMessage) bool { return m.Params.Update.Status == "completed" })
	call := -1
	for i := range msgs {
		if msgs[i].Params.Update.SessionUpdate == "tool_call" && strings.HasPrefix(msgs[i].Params.Update.Title, "Remove") {
			call = i
		}
	}
	if call < 0 {
		t.Fatalf("no tool call shows the removal: %+v", msgs)
	}
	u := msgs[call].Params.Update
	if u.Title != "Remove new.txt: the change set was refused" || len(u.Content) != 1 ||
		!strings.Contains(u.Content[0].Content.Text, "removes new.txt, which the change set created") {
		t.Errorf("the removal's tool call: %+v", u)
	}
}

// waitSent waits until the last message the client received is one done
// accepts and returns them all.
func waitSent(t *testing.T, r *fsRun, done func(wireMessage) bool) []wireMessage {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		msgs := r.sent(t)
		if len(msgs) > 0 && done(msgs[len(msgs)-1]) {
			return msgs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client received %+v", msgs)
		}
	}
}

// TestClientFilesWrittenAreNamed: a file agent-ls created through
// fs/write_text_file that the client holds unsaved (not on disk) is
// asked for, so the agent reads what it wrote.
func TestClientFilesWrittenAreNamed(t *testing.T) {
	c := &fsClient{}
	r := startFS(t, c)
	n := filepath.Join(r.dir, "new.txt")
	c.mu.Lock()
	c.unsaved = true
	c.mu.Unlock()
	applied, err := r.fe.ApplyChanges(r.ctx, &workspace.ChangeSet{Changes: []workspace.FileChange{{Kind: workspace.Add, Path: n, NewContent: []byte("fresh\n")}}})
	if !applied || err != nil {
		t.Fatalf("ApplyChanges = %v, %v", applied, err)
	}
	if _, err := os.Stat(n); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("new.txt is on disk: %v", err)
	}
	if doc, ok := r.files.Document(n); !ok || doc.Text != "fresh\n" || !c.asked(n) {
		t.Errorf("Document(new.txt) = %+v, %v; want the client's buffer", doc, ok)
	}
}

func TestPromptPaths(t *testing.T) {
	got := promptPaths([]sdk.ContentBlock{
		sdk.TextBlock("see"),
		sdk.ResourceLinkBlock("a.go", "file:///w/a.go"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/b.go#L3-4", Text: "x"}}),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Uri: "file:///w/c.png", Blob: "aGk="}}),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "zed://rules", Text: "be brief"}}),
		sdk.ResourceLinkBlock("web", "https://example.com/d.go"),
	})
	var named namedPaths
	named.add(got...)
	for _, p := range []string{"/w/a.go", "/w/b.go", "/w/./c.png"} {
		if !named.has(p) {
			t.Errorf("%s not named; the prompt names %q", p, got)
		}
	}
	for _, p := range []string{"", "/w", "/d.go", "rules"} {
		if named.has(p) {
			t.Errorf("%q named; the prompt names %q", p, got)
		}
	}
}

// TestDeclinedWrites: a client's refusal of a write, in the words real
// clients use, is the user's decision; a failure is not.
func TestDeclinedWrites(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&sdk.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"details": "Permission denied for fs/write_text_file"}}, true},
		{&sdk.RequestError{Code: -32603, Message: "the user rejected the write"}, true},
		{errors.New("the user refused this change"), true},
		{&sdk.RequestError{Code: -32603, Message: "disk full"}, false},
		{context.DeadlineExceeded, false},
	} {
		if got := declined(c.err); got != c.want {
			t.Errorf("declined(%v) = %v", c.err, got)
		}
	}
}

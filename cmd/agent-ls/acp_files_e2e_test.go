package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// filesClient is acpClient with the file reads of codecompanion: a file
// it has neither a buffer nor a disk file for is answered with empty
// content. It keeps the paths it was asked to read.
type filesClient struct {
	acpClient
	reads []string
}

func (c *filesClient) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.reads = append(c.reads, p.Path)
	c.mu.Unlock()
	resp, err := c.acpClient.ReadTextFile(ctx, p)
	if err != nil {
		return sdk.ReadTextFileResponse{}, nil
	}
	return resp, nil
}

func (c *filesClient) asked() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.reads)
}

// startACPFiles runs agent-ls acp in dir against m for client, which
// offers fs/*, and returns the connection and what agent-ls wrote to
// the client, line by line as it is read.
func startACPFiles(t *testing.T, m *fakemodel.Server, dir string, client sdk.Client) (*sdk.ClientSideConnection, context.Context, *syncWriter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	p := spawnACP(t, m, dir, t.TempDir())
	wire := &syncWriter{w: &strings.Builder{}}
	conn := sdk.NewClientSideConnection(client, p.stdin, io.TeeReader(p.stdout, wire))
	conn.SetLogger(slog.New(slog.DiscardHandler))
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatal(err)
	}
	return conn, ctx, wire
}

// TestACPFilesAskedOnlyWhenTheyMayExist: at a session's first prompt the
// client is asked for the AGENTS.md on disk (its unsaved text is the
// model's instructions) and not for the AGENTS.override.md that is not
// there; read_file of a file not on disk asks the client only when its
// prompt named the file, and a client that answers such a file with
// empty content does not make it an empty file.
func TestACPFilesAskedOnlyWhenTheyMayExist(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("disk rules\n"), 0o644)
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("r1", "read_file", `{"file_path":"missing.txt"}`)),
		fakemodel.Answer(fakemodel.FunctionCall("r2", "read_file", `{"file_path":"ghost.txt"}`)),
		fakemodel.Say("done"),
	)
	t.Cleanup(m.Close)
	c := &filesClient{acpClient: acpClient{buffers: map[string]string{filepath.Join(dir, "AGENTS.md"): "editor rules: answer in haiku\n"}}}
	conn, ctx, _ := startACPFiles(t, m, dir, c)
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("read both"), sdk.ResourceLinkBlock("ghost.txt", "file://"+filepath.Join(dir, "ghost.txt"))}})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	asked := c.asked()
	for _, name := range []string{"AGENTS.override.md", "missing.txt"} {
		if slices.Contains(asked, filepath.Join(dir, name)) {
			t.Errorf("the client was asked for %s, which is not on disk and which it never named; asked %q", name, asked)
		}
	}
	for _, name := range []string{"AGENTS.md", "ghost.txt"} {
		if !slices.Contains(asked, filepath.Join(dir, name)) {
			t.Errorf("the client was not asked for %s; asked %q", name, asked)
		}
	}
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, "editor rules: answer in haiku") || strings.Contains(body, "disk rules") {
		t.Errorf("the instructions are not the editor's AGENTS.md")
	}
	for i, name := range []string{"missing.txt", "ghost.txt"} {
		if body := string(reqs[i+1].Body); !strings.Contains(body, "read_file: "+name+": no such file or directory") || strings.Contains(body, name+" is empty") {
			t.Errorf("the model was not told %s does not exist", name)
		}
	}
}

// TestACPFilesRestoreIsShown: the client fails to write the change set's
// second file ("disk full"); the first gets its old content back through
// fs/write_text_file, announced on the wire by a tool call of its own
// before that write, whose title says the set could not be written.
func TestACPFilesRestoreIsShown(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch"
	m := fakemodel.New(fakemodel.Answer(fakemodel.CustomToolCall("e1", "apply_patch", patch)), fakemodel.Say("ok"))
	t.Cleanup(m.Close)
	c := &filesClient{acpClient: acpClient{buffers: map[string]string{}, failPath: filepath.Join(dir, "b.txt")}}
	conn, ctx, wire := startACPFiles(t, m, dir, c)
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("edit")}}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "a\n" {
		t.Errorf("a.txt = %q after the refused set", data)
	}
	call, write, done := -1, -1, -1
	var id string
	for i, line := range strings.Split(wire.String(), "\n") {
		var msg struct {
			Method string
			Params struct {
				Path, Content string
				Update        struct {
					SessionUpdate, ToolCallID, Title, Status string
				} `json:"update"`
			}
		}
		json.Unmarshal([]byte(line), &msg)
		u := msg.Params.Update
		switch {
		case u.SessionUpdate == "tool_call" && u.Title == "Restore a.txt: the change set could not be written":
			call, id = i, u.ToolCallID
		case msg.Method == "fs/write_text_file" && msg.Params.Path == filepath.Join(dir, "a.txt") && msg.Params.Content == "a\n":
			write = i
		case u.SessionUpdate == "tool_call_update" && id != "" && u.ToolCallID == id && u.Status == "completed":
			done = i
		}
	}
	if call < 0 || write < call || done < write {
		t.Errorf("the restore's tool call at line %d, its write at %d, its end at %d", call, write, done)
	}
	reqs := m.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), "got their content before the change back") {
		t.Errorf("the model was not told a.txt was restored")
	}
}

package acp

import (
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

func TestDiffBlocks(t *testing.T) {
	cases := []struct {
		name string
		fc   workspace.FileChange
		want string
	}{
		{"update", workspace.FileChange{Kind: workspace.Update, Path: "/w/a.txt", OldContent: []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"), NewContent: []byte("1\nTWO\n3\n4\n5\n6\n7\n8\n9\nTEN\n")}, `[{"newText":"1\nTWO\n3\n4\n5\n","oldText":"1\n2\n3\n4\n5\n","path":"/w/a.txt","type":"diff"},{"newText":"7\n8\n9\nTEN\n","oldText":"7\n8\n9\n10\n","path":"/w/a.txt","type":"diff"}]`},
		{"two hunks", workspace.FileChange{Kind: workspace.Update, Path: "/w/a.txt", OldContent: []byte(strings.Repeat("x\n", 20) + "a\n" + strings.Repeat("x\n", 20) + "b\n"), NewContent: []byte(strings.Repeat("x\n", 20) + "A\n" + strings.Repeat("x\n", 20) + "B\n")}, ""},
		{"new file", workspace.FileChange{Kind: workspace.Add, Path: "/w/sub/n.txt", NewContent: []byte("fresh\n")}, `[{"newText":"fresh\n","path":"/w/sub/n.txt","type":"diff"}]`},
		{"delete", workspace.FileChange{Kind: workspace.Delete, Path: "/w/d.txt", OldContent: []byte("gone\n")}, `[{"newText":"","oldText":"gone\n","path":"/w/d.txt","type":"diff"}]`},
		{"no final newline", workspace.FileChange{Kind: workspace.Update, Path: "/w/e.txt", OldContent: []byte("a"), NewContent: []byte("b")}, `[{"newText":"b","oldText":"a","path":"/w/e.txt","type":"diff"}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			blocks := diffBlocks(tc.fc.Diff("/w"), "/w")
			b, _ := json.Marshal(blocks)
			if tc.want == "" {
				if len(blocks) != 2 || *blocks[0].Diff.OldText != "x\nx\nx\na\nx\nx\nx\n" || blocks[1].Diff.NewText != "x\nx\nx\nB\n" {
					t.Errorf("got %s", b)
				}
				return
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

func TestPromptInput(t *testing.T) {
	blocks := []sdk.ContentBlock{
		sdk.TextBlock("explain"),
		sdk.ResourceLinkBlock("main.go", "file:///w/main.go"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.go#L10-12", Text: "x := 1"}}),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "zed://rules", Text: "be brief"}}),
		sdk.ImageBlock("aGk=", "image/png"),
	}
	in, err := promptInput(blocks)
	if err != nil {
		t.Fatal(err)
	}
	if in.Prompt != "explain\nReferenced file: /w/main.go\nAttached zed://rules:\nbe brief" {
		t.Errorf("prompt %q", in.Prompt)
	}
	if len(in.Context) != 1 || in.Context[0].Path != "/w/a.go" || in.Context[0].StartLine != 10 || in.Context[0].EndLine != 12 || in.Context[0].Text != "x := 1" {
		t.Errorf("context %+v", in.Context)
	}
	if len(in.Images) != 1 || in.Images[0] != "data:image/png;base64,aGk=" {
		t.Errorf("images %v", in.Images)
	}
	for name, bad := range map[string][]sdk.ContentBlock{
		"empty":      {sdk.TextBlock("  ")},
		"not base64": {sdk.ImageBlock("!!", "image/png")},
		"not image":  {sdk.ImageBlock("aGk=", "text/html")},
		"audio":      {sdk.AudioBlock("aGk=", "audio/wav")},
	} {
		if _, err := promptInput(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestSlashCommand(t *testing.T) {
	for prompt, want := range map[string]string{"/undo": "undo", " /new ": "new", "/undo please": "undo", "/compactify": "", "undo": "", "/unknown": ""} {
		name, _, ok := slashCommand(agentInput(prompt), commands)
		if ok != (want != "") || name != want {
			t.Errorf("%q: %q %v", prompt, name, ok)
		}
	}
}

func TestWireAnswersWhatTheSDKDrops(t *testing.T) {
	var out strings.Builder
	var mu sync.Mutex
	w := &wire{out: lockedWriter{&mu, &out}, log: slog.New(slog.DiscardHandler)}
	in := strings.NewReader("{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\nnot json\n[1]\n42\n\n" + "{\"big\":\"" + strings.Repeat("a", maxMessage) + "\"}\n" + "{\"last\":1}")
	passed, err := io.ReadAll(w.reader(in, nil))
	if err != nil {
		t.Fatal(err)
	}
	if string(passed) != "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n{\"last\":1}\n" {
		t.Errorf("passed on %q", passed)
	}
	mu.Lock()
	got := out.String()
	mu.Unlock()
	for _, want := range []string{`"code":-32700`, `batches`, `a message is a JSON object`, `larger than 8 MiB`} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in the answers:\n%s", want, got)
		}
	}
	if strings.Count(got, "\n") != 4 {
		t.Errorf("%d answers:\n%s", strings.Count(got, "\n"), got)
	}
}

// TestWireRefusesIdsJSONRPCForbids: a request whose id is an object, an
// array or a boolean is answered with Invalid Request and id null, not
// handed to the SDK; string, number and null ids go through.
func TestWireRefusesIdsJSONRPCForbids(t *testing.T) {
	var out strings.Builder
	var mu sync.Mutex
	w := &wire{out: lockedWriter{&mu, &out}, log: slog.New(slog.DiscardHandler)}
	good := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/new\",\"params\":{}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"session/new\",\"params\":{\"id\":{}}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}\n"
	bad := []string{
		`{"jsonrpc":"2.0","id":{"a":1},"method":"session/new","params":{}}`,
		`{"jsonrpc":"2.0","id":[1],"method":"session/new","params":{}}`,
		`{"jsonrpc":"2.0","method":"session/new","id":{},"params":{}}`,
		`{"jsonrpc":"2.0","id":true,"method":"session/new","params":{}}`,
	}
	passed, err := io.ReadAll(w.reader(strings.NewReader(strings.Join(bad, "\n")+"\n"+good), nil))
	if err != nil {
		t.Fatal(err)
	}
	if string(passed) != good {
		t.Errorf("passed on %q", passed)
	}
	mu.Lock()
	got := out.String()
	mu.Unlock()
	answers := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(answers) != len(bad) {
		t.Fatalf("%d answers:\n%s", len(answers), got)
	}
	for _, a := range answers {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int }
		}
		if err := json.Unmarshal([]byte(a), &m); err != nil || string(m.ID) != "null" || m.Error.Code != -32600 {
			t.Errorf("answer %s", a)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestTailKeepsTheEnd(t *testing.T) {
	var tl tail
	for i := 0; i < 1000; i++ {
		tl.write(strings.Repeat("y", 99) + "\n")
	}
	s := tl.String()
	if len(s) > maxShownOutput+100 || !strings.HasPrefix(s, "[… ") || !strings.HasSuffix(s, "y\n") {
		t.Errorf("tail of %d bytes: %.80q", len(s), s)
	}
}

func agentInput(prompt string) agent.TurnInput { return agent.TurnInput{Prompt: prompt} }

func TestNullOldText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk"}}}` + "\n", ""},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"content":[{"newText":"a\n","path":"/w/n","type":"diff"},{"newText":"b","oldText":"c","path":"/w/o","type":"diff"}],"sessionUpdate":"tool_call","toolCallId":"t1"}}}` + "\n",
			`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"content":[{"newText":"a\n","oldText":null,"path":"/w/n","type":"diff"},{"newText":"b","oldText":"c","path":"/w/o","type":"diff"}],"sessionUpdate":"tool_call","toolCallId":"t1"}}}` + "\n"},
		// a permission request with a big number and HTML-ish text kept as they were
		{`{"id":12345678901234567890,"jsonrpc":"2.0","method":"session/request_permission","params":{"toolCall":{"content":[{"newText":"\u003cb\u003e","path":"/w/n","type":"diff"}]}}}` + "\n",
			`{"id":12345678901234567890,"jsonrpc":"2.0","method":"session/request_permission","params":{"toolCall":{"content":[{"newText":"\u003cb\u003e","oldText":null,"path":"/w/n","type":"diff"}]}}}` + "\n"},
		// the marker inside a string is text, not a block
		{`{"params":{"text":"{\"type\":\"diff\"}"}}`, ""},
		{`{"type":"diff" not json`, ""},
	} {
		got := string(nullOldText([]byte(c.in)))
		want := c.want
		if want == "" {
			want = c.in
		}
		if got != want {
			t.Errorf("nullOldText(%s)\n = %s\nwant %s", c.in, got, want)
		}
	}
}

// TestWireRunsAfterTheAnswer: what waits for the answer to a client's
// request runs as that answer is written, a result or an error, and not
// for a request of ours that has the same id nor for another answer.
func TestWireRunsAfterTheAnswer(t *testing.T) {
	var out strings.Builder
	w := &wire{out: &out, log: slog.New(slog.DiscardHandler)}
	ran := 0
	w.afterAnswerTo(json.RawMessage(`"a<b"`), func() { ran++ })
	w.afterAnswerTo(json.RawMessage(`7`), func() { ran += 10 })
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":"a<b","method":"session/request_permission","params":{}}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"id":"a\u003cb"}}`,
	} {
		w.Write([]byte(line + "\n"))
	}
	if ran != 0 {
		t.Fatalf("ran %d before the answers", ran)
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":"a\u003cb","error":{"code":-32602,"message":"x"}}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","id":7,"result":{}}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","id":"a<b","result":{}}` + "\n"))
	if ran != 11 {
		t.Errorf("ran %d, want each once", ran)
	}
}

// TestToolProgressUpdate: an MCP call's progress shows as the running
// call's content; progress of a call not shown, or ended, shows nothing.
func TestToolProgressUpdate(t *testing.T) {
	v := newEventView()
	v.updates(event.Event{Payload: event.ToolCall{CallID: "c", Tool: "index", Kind: event.KindOther, Title: "index (srv)"}}, "/w", false)
	us := v.updates(event.Event{Payload: event.ToolProgress{CallID: "c", Progress: 2, Total: 5, Message: "indexing"}}, "/w", false)
	if len(us) != 1 {
		t.Fatalf("updates %+v", us)
	}
	b, err := json.Marshal(us[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sessionUpdate":"tool_call_update"`, `"toolCallId":"c"`, `"status":"in_progress"`, `"text":"Progress: 2/5 indexing"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("update %s lacks %s", b, want)
		}
	}
	if !v.calls["c"].running {
		t.Error("the call is not marked running")
	}
	v.updates(event.Event{Payload: event.ToolResult{CallID: "c", Tool: "index", Status: event.ToolCompleted, Output: "done"}}, "/w", false)
	for _, id := range []string{"c", "unknown"} {
		if us := v.updates(event.Event{Payload: event.ToolProgress{CallID: id, Progress: 3}}, "/w", false); len(us) != 0 {
			t.Errorf("progress of %s: %+v", id, us)
		}
	}
}

package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// typicalRequest is a request as a turn in progress sends it: long
// instructions, a dozen tools with schemas, a history of a few dozen items.
func typicalRequest() *Request {
	req := &Request{
		Model:            "gpt-5-codex",
		Instructions:     strings.Repeat("You are a coding agent. Keep edits small & precise; <never> guess.\n", 150),
		ReasoningEffort:  "medium",
		ReasoningSummary: "auto",
		PromptCacheKey:   "0b9c1f0e-conversation",
		WebSearch:        true,
	}
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"The file, relative to the workspace root."},"offset":{"type":"integer","minimum":1},"limit":{"type":"integer","maximum":2000}},"required":["path"],"additionalProperties":false}`)
	for i := range 12 {
		req.Tools = append(req.Tools, Tool{Type: ToolFunction, Name: fmt.Sprintf("tool_%d", i),
			Description: strings.Repeat("Does one precise thing with the workspace. ", 8), Parameters: schema})
	}
	req.Tools = append(req.Tools, Tool{Type: ToolCustom, Name: "apply_patch", Description: "Edit files.",
		Grammar: &Grammar{Syntax: "lark", Definition: strings.Repeat("hunk: \"@@\" /.+/ NEWLINE\n", 20)}})
	req.Input = append(req.Input,
		Item{Type: ItemMessage, Role: RoleDeveloper, Text: "<environment_context>cwd: /src</environment_context>"},
		Item{Type: ItemMessage, Role: RoleUser, Text: "Fix the failing test in parser_test.go."})
	for i := range 8 {
		id := fmt.Sprintf("call_%d", i)
		req.Input = append(req.Input,
			Item{Type: ItemReasoning, Summary: []string{"Looking at the parser."}, EncryptedContent: strings.Repeat("gAAAAB", 200)},
			Item{Type: ItemMessage, Role: RoleAssistant, Text: "Reading the file.", Phase: "commentary"},
			Item{Type: ItemFunctionCall, CallID: id, Name: "tool_1", Arguments: `{"path":"internal/parser/parser.go","offset":1}`},
			Item{Type: ItemFunctionCallOutput, CallID: id, Output: strings.Repeat("func parse(s string) (*Node, error) {\n", 40)})
	}
	req.Input = append(req.Input,
		Item{Type: ItemCustomToolCall, CallID: "call_p", Name: "apply_patch", Input: "*** Begin Patch\n*** Update File: a.go\n@@\n-a\n+b\n*** End Patch\n"},
		Item{Type: ItemCustomToolCallOutput, CallID: "call_p", Output: "Success. Updated: a.go"})
	return req
}

// BenchmarkRequestBody measures building and encoding the body of a
// typical request.
func BenchmarkRequestBody(b *testing.B) {
	req := typicalRequest()
	for _, wire := range []string{WireResponses, WireChat} {
		b.Run(wire, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := wireBody(req, wire); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cannedTransport answers every request with the same event stream.
type cannedTransport struct{ body []byte }

func (c cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(c.body)), Request: r}, nil
}

// recordStream returns the event stream the fake server sends for reply
// on wire.
func recordStream(b *testing.B, wire string, reply fakemodel.Step) []byte {
	srv := newFake(b, reply)
	path, body := "/responses", `{"model":"m","stream":true,"input":"go"}`
	if wire == WireChat {
		path, body = "/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}`
	}
	res, err := http.Post(srv.URL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		b.Fatalf("recording: %d %v", res.StatusCode, err)
	}
	return data
}

// BenchmarkDecodeStream measures turning a typical event stream (reasoning
// summary, a message of 300 deltas, a function call) into events, from
// memory: no network, no server.
func BenchmarkDecodeStream(b *testing.B) {
	words := make([]string, 300)
	for i := range words {
		words[i] = "word "
	}
	reply := fakemodel.Answer(
		fakemodel.Reasoning("gAAAAB-encrypted", "Thinking about it.", "Decided."),
		fakemodel.Message(words...),
		fakemodel.FunctionCall("call_1", "tool_1", `{"path":"a.go"}`))
	for _, wire := range []string{WireResponses, WireChat} {
		b.Run(wire, func(b *testing.B) {
			stream := recordStream(b, wire, reply)
			c, err := New(Config{WireAPI: wire, BaseURL: "http://127.0.0.1:9/v1", HTTPClient: &http.Client{Transport: cannedTransport{stream}}})
			if err != nil {
				b.Fatal(err)
			}
			req := &Request{Model: "m", Input: []Item{{Type: ItemMessage, Role: RoleUser, Text: "go"}}}
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				resp, err := c.Stream(context.Background(), req, func(e Event) { n++ })
				if err != nil {
					b.Fatal(err)
				}
				if len(resp.Output) < 2 || n < 300 {
					b.Fatalf("%d items, %d events", len(resp.Output), n)
				}
			}
		})
	}
}

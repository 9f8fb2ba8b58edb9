package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/tools"
)

// promptsOf returns server's prompts in set.
func promptsOf(set *Set, server string) []Prompt {
	for _, sp := range set.Prompts() {
		if sp.Server == server {
			return sp.Prompts
		}
	}
	return nil
}

func promptNames(ps []Prompt) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// TestEverythingPrompts: the reference server's prompts are listed with
// their arguments, and got with arguments: text, and an embedded
// resource's text; a missing argument is the server's clear error.
func TestEverythingPrompts(t *testing.T) {
	set, _, _ := startSet(t, npmServer(t, "everything", "mcp-server-everything", "stdio"))
	ps := promptsOf(set, "everything")
	for _, want := range []string{"simple-prompt", "args-prompt", "resource-prompt"} {
		if !slices.Contains(promptNames(ps), want) {
			t.Fatalf("prompt %s missing from %q", want, promptNames(ps))
		}
	}
	i := slices.IndexFunc(ps, func(p Prompt) bool { return p.Name == "args-prompt" })
	args := ps[i]
	want := []PromptArgument{{Name: "city", Description: "Name of the city", Required: true}, {Name: "state"}}
	if args.Description == "" || !slices.Equal(args.Arguments, want) {
		t.Errorf("args-prompt: %+v", args)
	}
	ctx := testCtx(t)
	msgs, err := set.GetPrompt(ctx, "everything", "simple-prompt", nil)
	if err != nil || len(msgs) != 1 || msgs[0].Role != "user" || msgs[0].Text != "This is a simple prompt without arguments." {
		t.Errorf("simple-prompt: %+v, %v", msgs, err)
	}
	msgs, err = set.GetPrompt(ctx, "everything", "args-prompt", map[string]string{"city": "Paris", "state": "Texas"})
	if err != nil || len(msgs) != 1 || msgs[0].Text != "What's weather in Paris, Texas?" {
		t.Errorf("args-prompt: %+v, %v", msgs, err)
	}
	msgs, err = set.GetPrompt(ctx, "everything", "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "3"})
	if err != nil || len(msgs) != 2 {
		t.Fatalf("resource-prompt: %+v, %v", msgs, err)
	}
	mustContain(t, "resource-prompt", msgs[1].Text, "[resource demo://resource/dynamic/text/3]", "Resource 3: This is a plaintext resource")
	_, err = set.GetPrompt(ctx, "everything", "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "x"})
	if err == nil {
		t.Fatal("a bad argument got a prompt")
	}
	mustContain(t, "bad argument", err.Error(), "MCP server everything: prompts/get of resource-prompt:", "Invalid resourceId")
	if _, err := set.GetPrompt(ctx, "nowhere", "simple-prompt", nil); err == nil || !strings.Contains(err.Error(), `unknown MCP server "nowhere"`) {
		t.Errorf("unknown server: %v", err)
	}
	// The set still runs after the server's error.
	if st := statusOf(t, set, "everything"); st.State != StateReady {
		t.Errorf("status %+v", st)
	}
}

// sdkPromptServer is a go-sdk server over streamable HTTP on loopback
// that gives its prompts two a page.
func sdkPromptServer(t *testing.T) (*sdk.Server, string) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "prompts-test", Version: "1.0.0"}, &sdk.ServerOptions{PageSize: 2})
	text := func(text string) sdk.PromptHandler {
		return func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			t := text
			for k, v := range req.Params.Arguments {
				t += fmt.Sprintf(" %s=%s", k, v)
			}
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: t}}}}, nil
		}
	}
	png, _ := base64.StdEncoding.DecodeString(tinyPNG)
	s.AddPrompt(&sdk.Prompt{Name: "review", Description: "Review\x1b[2J the\ncode", Arguments: []*sdk.PromptArgument{{Name: "focus", Required: true}}}, text("review"))
	s.AddPrompt(&sdk.Prompt{Name: "plain", Title: "A plain prompt"}, text("plain"))
	s.AddPrompt(&sdk.Prompt{Name: "bad name"}, text("bad"))
	s.AddPrompt(&sdk.Prompt{Name: "bad-arg", Arguments: []*sdk.PromptArgument{{Name: "a b"}}}, text("bad"))
	s.AddPrompt(&sdk.Prompt{Name: "long", Description: strings.Repeat("x", 5000)}, text("long"))
	s.AddPrompt(&sdk.Prompt{Name: "chat"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
			{Role: "user", Content: &sdk.TextContent{Text: "What is this?"}},
			{Role: "user", Content: &sdk.ImageContent{MIMEType: "image/png", Data: png}},
			{Role: "assistant", Content: &sdk.TextContent{Text: "A dot."}},
		}}, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/mcp"
}

// TestPromptPagesAndChanges: a go-sdk server's prompts come in pages;
// names that cannot be typed are left out, descriptions made visible and
// cut; its list_changed lists them again and tells PromptsChanged;
// messages keep their roles and images.
func TestPromptPagesAndChanges(t *testing.T) {
	s, url := sdkPromptServer(t)
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var changed atomic.Int64
	set, err := NewSet([]ServerConfig{{Name: "gp", URL: url}}, Options{Registry: reg, ClientVersion: "test", PromptsChanged: func() { changed.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	set.Start()
	set.Ready(testCtx(t))
	ps := promptsOf(set, "gp")
	if got := promptNames(ps); !slices.Equal(got, []string{"chat", "long", "plain", "review"}) {
		t.Fatalf("prompts %q", got)
	}
	if ps[2].Description != "A plain prompt" || ps[3].Description != `Review\x1b[2J the code` || len(ps[1].Description) > maxPromptDescLen+10 {
		t.Errorf("descriptions %q, %q, %d bytes", ps[2].Description, ps[3].Description, len(ps[1].Description))
	}
	if changed.Load() != 1 {
		t.Errorf("PromptsChanged told %d times at the start", changed.Load())
	}

	msgs, err := set.GetPrompt(testCtx(t), "gp", "chat", nil)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("chat: %+v, %v", msgs, err)
	}
	if msgs[1].Role != "user" || len(msgs[1].Images) != 1 || !strings.HasPrefix(msgs[1].Images[0], "data:image/png;base64,") || msgs[2].Role != "assistant" || msgs[2].Text != "A dot." {
		t.Errorf("chat: %+v", msgs)
	}

	s.AddPrompt(&sdk.Prompt{Name: "late", Description: "Came late."}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "late"}}}}, nil
	})
	s.RemovePrompts("long")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Equal(promptNames(promptsOf(set, "gp")), []string{"chat", "late", "plain", "review"}) {
		if time.Now().After(deadline) {
			t.Fatalf("after list_changed: %q", promptNames(promptsOf(set, "gp")))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if changed.Load() < 2 {
		t.Errorf("PromptsChanged told %d times", changed.Load())
	}
	if msgs, err := set.GetPrompt(testCtx(t), "gp", "review", map[string]string{"focus": "errors"}); err != nil || msgs[0].Text != "review focus=errors" {
		t.Errorf("review: %+v, %v", msgs, err)
	}
}

// TestPromptsAbsent: a server without prompts lists none, and one whose
// name cannot start a slash command offers none.
func TestPromptsAbsent(t *testing.T) {
	_, url := sdkPromptServer(t)
	set, _, _ := startSet(t, ourServer(t, "plain", "tools"), ServerConfig{Name: "bad name", URL: url})
	if got := set.Prompts(); len(got) != 0 {
		t.Errorf("prompts %+v", got)
	}
	if st := statusOf(t, set, "bad name"); st.State != StateReady {
		t.Errorf("status %+v", st)
	}
}

func TestSlashName(t *testing.T) {
	for name, want := range map[string]bool{"review": true, "a.b-c_D9": true, "": false, "a b": false, "a:b": false, "é": false, strings.Repeat("a", 65): false, strings.Repeat("a", 64): true} {
		if got := SlashName(name); got != want {
			t.Errorf("SlashName(%q) = %v", name, got)
		}
	}
}

// TestPromptPagesBounded: a cursor that comes back ends the listing with
// an error, and so do more than maxPrompts prompts.
func TestPromptPagesBounded(t *testing.T) {
	c, srv, _ := stdioClient(t, 0)
	list := func() <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := listAllPrompts(testCtx(t), c)
			done <- err
		}()
		return done
	}
	done := list()
	for _, cursor := range []string{"a", "b", "a"} {
		m := srv.read()
		if m.Method != "prompts/list" {
			t.Fatalf("message %+v", m)
		}
		srv.answer(m, fmt.Sprintf(`{"prompts":[{"name":"p"}],"nextCursor":%q}`, cursor))
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), `the cursor "a" came back`) {
		t.Errorf("looping pages: %v", err)
	}

	done = list()
	m := srv.read()
	var many []string
	for i := range maxPrompts + 1 {
		many = append(many, fmt.Sprintf(`{"name":"p%d"}`, i))
	}
	srv.answer(m, `{"prompts":[`+strings.Join(many, ",")+`]}`)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "more than the 500 prompts") {
		t.Errorf("too many prompts: %v", err)
	}
}

package agent

import (
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// fakePrompts is a PromptSource with prompts of the server "docs".
type fakePrompts struct {
	mu  sync.Mutex
	got []map[string]string
}

func (f *fakePrompts) PromptServers() []string { return []string{"docs"} }

func (f *fakePrompts) Prompts() []Prompt {
	return []Prompt{
		{Server: "docs", Name: "review", Description: "Review code", Arguments: []PromptArgument{{Name: "focus", Required: true}, {Name: "depth"}}},
		{Server: "docs", Name: "pair", Arguments: []PromptArgument{{Name: "a", Required: true}, {Name: "b", Required: true}}},
		{Server: "docs", Name: "chat"},
	}
}

func (f *fakePrompts) GetPrompt(_ context.Context, server, name string, args map[string]string) ([]PromptMessage, error) {
	f.mu.Lock()
	f.got = append(f.got, maps.Clone(args))
	f.mu.Unlock()
	switch name {
	case "chat":
		return []PromptMessage{
			{Role: "user", Text: "What is this?", Images: []string{"data:image/png;base64,AAAA"}},
			{Role: "assistant", Text: "A dot.", Images: []string{"data:image/png;base64,BBBB"}},
			{Role: "user", Text: "Say more."},
		}, nil
	case "review":
		return []PromptMessage{{Role: "user", Text: "Review for " + args["focus"] + " depth " + args["depth"]}}, nil
	}
	return nil, errors.New("the server failed\x1b[2J" + strings.Repeat("!", 5000))
}

// TestSlashPrompt: /docs:<prompt> runs the server's prompt: its messages,
// roles and images are the model's input in place of the slash text;
// arguments are name=value words, quoted, or the rest of the line for a
// single required one; mistakes fail the turn before the model is asked.
func TestSlashPrompt(t *testing.T) {
	m := &scriptedModel{}
	fe := newRecorder()
	fp := &fakePrompts{}
	var src *sources
	mgr := managerWith(t, m, fe, func(o *Options) {
		o.Prompts = fp
		src = &sources{reg: o.Tools, t: t}
		o.ToolSources = src
	})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(prompt string) event.TurnCompleted {
		t.Helper()
		if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: prompt}); err != nil {
			t.Fatal(err)
		}
		return fe.wait(t)
	}

	m.add(say("m1", "ok"))
	if tc := run("/docs:chat"); tc.Status != event.StatusCompleted {
		t.Fatalf("chat: %+v", tc)
	}
	in := m.request(0).Input
	got := in[len(in)-3:]
	if got[0].Role != model.RoleUser || got[0].Text != "What is this?" || len(got[0].Images) != 1 ||
		got[1].Role != model.RoleAssistant || len(got[1].Images) != 0 || !strings.Contains(got[1].Text, "1 image(s) of the prompt left out") ||
		got[2].Text != "Say more." {
		t.Errorf("input %+v", got)
	}
	src.mu.Lock()
	if src.ready == 0 {
		t.Error("the prompt was expanded before the servers were ready")
	}
	src.mu.Unlock()

	for _, c := range []struct{ line, want string }{
		{"/docs:review the error paths", "Review for the error paths depth "},
		{`  /docs:review focus="error paths" depth=2 `, "Review for error paths depth 2"},
		{`/docs:review 'quoted whole'`, "Review for quoted whole depth "},
		{`/docs:review focus=a\ b`, "Review for a b depth "},
		{"/docs:review x=1", "Review for x=1 depth "},
	} {
		m.add(say("m", "ok"))
		if tc := run(c.line); tc.Status != event.StatusCompleted {
			t.Fatalf("%s: %+v", c.line, tc)
		}
		in := m.request(len(m.requests) - 1).Input
		if last := in[len(in)-1]; last.Text != c.want {
			t.Errorf("%s: input %q, want %q", c.line, last.Text, c.want)
		}
	}
	asked := len(m.requests)
	for _, c := range []struct{ line, want string }{
		{"/docs:nope", `/docs:nope: the MCP server docs has no prompt "nope"; its prompts: review, pair, chat`},
		{"/docs:review", `/docs:review: the required argument "focus" is missing (its arguments: focus=… (required; or the rest of the line alone) depth=…)`},
		{"/docs:review focus=x color=red", `/docs:review: unknown argument "color"`},
		{"/docs:pair a=1", `/docs:pair: the required argument "b" is missing`},
		{"/docs:pair a=1 lonely", `/docs:pair: "lonely" is not name=value`},
		{`/docs:pair a="1 b=2`, "/docs:pair: a quote is not closed"},
		{"/docs:pair a=1 a=2 b=3", `argument "a" given twice`},
		{"/docs:pair a=1 b=2", `/docs:pair: the server failed\x1b[2J!!!`},
		{"/docs:", "/docs:: no prompt named; the prompts of docs: review, pair, chat"},
	} {
		tc := run(c.line)
		if tc.Status != event.StatusFailed || !strings.Contains(tc.Error, c.want) {
			t.Errorf("%s: %+v, want an error with %q", c.line, tc, c.want)
		}
	}
	if tc := run("/docs:pair a=1 b=2"); len(tc.Error) > 2100 {
		t.Errorf("the server's error told at %d bytes", len(tc.Error))
	}
	if len(m.requests) != asked {
		t.Errorf("the model was asked about a prompt that failed")
	}

	// Not a configured server: plain text.
	m.add(say("m", "ok"))
	run("/other:thing and /docs:review x")
	in = m.request(len(m.requests) - 1).Input
	if last := in[len(in)-1]; last.Text != "/other:thing and /docs:review x" {
		t.Errorf("plain text became %q", last.Text)
	}
	// A configured server's name followed by a colon and a space is a
	// question about it, not a prompt.
	m.add(say("m", "ok"))
	run("/docs: why is it slow?")
	in = m.request(len(m.requests) - 1).Input
	if last := in[len(in)-1]; last.Text != "/docs: why is it slow?" {
		t.Errorf("a question about the server became %q", last.Text)
	}
	ps, err := mgr.Prompts(info.SessionID)
	if err != nil || len(ps) != 3 || ps[0].Name != "chat" {
		t.Errorf("Prompts: %+v, %v", ps, err)
	}
}

// sessionPrompts are a session's own tools that offer prompts too.
type sessionPrompts struct {
	fakePrompts
	reg *tools.Registry
}

func (s *sessionPrompts) Start()                    {}
func (s *sessionPrompts) Ready(context.Context)     {}
func (s *sessionPrompts) Snapshot() *tools.Snapshot { return s.reg.Snapshot() }

// TestSessionPrompts: a session's own tools offer their prompts too, with
// the editor context that came with the slash command after them.
func TestSessionPrompts(t *testing.T) {
	m := &scriptedModel{}
	fe := newRecorder()
	mgr := newTestManager(t, m, fe)
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	sp := &sessionPrompts{reg: reg}
	info, err := mgr.NewSession(SessionOptions{Tools: sp})
	if err != nil {
		t.Fatal(err)
	}
	m.add(say("m", "ok"))
	in := TurnInput{Prompt: "/docs:review focus=tests", Context: []ContextItem{{Path: info.Cwd + "/a.go", Text: "package a"}}}
	if _, err := mgr.StartTurn(info.SessionID, in); err != nil {
		t.Fatal(err)
	}
	if tc := fe.wait(t); tc.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", tc)
	}
	items := m.request(0).Input
	if a, b := items[len(items)-2], items[len(items)-1]; a.Text != "Review for tests depth " || !strings.Contains(b.Text, "package a") || !strings.Contains(b.Text, "/docs:review came with") {
		t.Errorf("input %+v", items[len(items)-2:])
	}
	if ps, _ := mgr.Prompts(info.SessionID); len(ps) != 3 {
		t.Errorf("Prompts %+v", ps)
	}
}

func TestShellWords(t *testing.T) {
	for line, want := range map[string]string{
		`a b`:             "a|b",
		`a="b c" d='e f'`: "a=b c|d=e f",
		`x=\"y\"`:         `x="y"`,
		`"a \" b"`:        `a " b`,
		`'a\b'`:           `a\b`,
		"  ":              "",
	} {
		got, err := shellWords(line)
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("shellWords(%q) = %q, %v", line, got, err)
		}
	}
	if _, err := shellWords(`'open`); err == nil {
		t.Error("an open quote is not an error")
	}
}

package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/elicit"
)

func termElicitRequest(t *testing.T, schema string) *agent.ElicitRequest {
	t.Helper()
	s, err := elicit.Parse(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return &agent.ElicitRequest{SessionID: "s", TurnID: "t",
		Request: elicit.Request{Server: "tick\x1bets", Message: "Open the issue?\x1b]52;c;aGk=\x07\nsecond line", Schema: s}}
}

// answering feeds lines to a terminal question and returns its result
// and what it showed.
func answering(t *testing.T, req *agent.ElicitRequest, input ...string) (elicit.Result, string) {
	t.Helper()
	lines := make(chan string, len(input))
	for _, l := range input {
		lines <- l
	}
	close(lines)
	var out strings.Builder
	res, err := terminalForm(lines, &out)(context.Background(), req)
	if err != nil {
		t.Fatalf("%q: %v\n%s", input, err, out.String())
	}
	return res, out.String()
}

// TestTerminalForm: the terminal asks each field in turn with what it
// takes, asks again on an answer the field refuses, takes choices by
// number, defaults on an empty line, and shows what the server wrote with
// visible escapes.
func TestTerminalForm(t *testing.T) {
	schema := `{"type":"object","required":["title","n"],"properties":{
		"title":{"type":"string","title":"Title\u202e","minLength":3},
		"n":{"type":"integer","minimum":1,"maximum":5},
		"queue":{"type":"string","oneOf":[{"const":"ops","title":"Operations"},{"const":"dev","title":"Development\u001b[2J"}]},
		"labels":{"type":"array","items":{"enum":["bug","ui","db"]},"maxItems":2},
		"urgent":{"type":"boolean","default":true},
		"email":{"type":"string","format":"email"}}}`
	res, out := answering(t, termElicitRequest(t, schema),
		"y", "ab", "crash on start", "seven", "9", "2", "2", "1,3", "", "")
	if res.Action != elicit.Accept {
		t.Fatalf("result %+v\n%s", res, out)
	}
	got, _ := json.Marshal(res.Content)
	if string(got) != `{"labels":["bug","db"],"n":2,"queue":"dev","title":"crash on start","urgent":true}` {
		t.Errorf("content %s", got)
	}
	for _, want := range []string{
		`? the MCP server tick\x1bets asks:`, `Open the issue?\x1b]52;c;aGk=\a` + "\n  second line",
		`Title\u202e (text, at least 3 characters, required)`, "! at least 3 characters",
		"n (a whole number, from 1, up to 5, required)", "! not a number", "! more than 5",
		`2) Development\x1b[2J`, "urgent (yes or no, optional, default yes)",
		"email (email, optional)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal does not show %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("raw control characters reached the terminal:\n%q", out)
	}

	if res, _ := answering(t, termElicitRequest(t, schema), "n"); res.Action != elicit.Decline {
		t.Errorf("n: %+v", res)
	}
	if res, _ := answering(t, termElicitRequest(t, schema), "c"); res.Action != elicit.Cancel {
		t.Errorf("c: %+v", res)
	}
	// The input ends mid-form: cancelled, nothing sent.
	if res, _ := answering(t, termElicitRequest(t, schema), "y", "a title"); res.Action != elicit.Cancel || res.Content != nil {
		t.Errorf("end of input: %+v", res)
	}
	// An interrupt ends the wait.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out2 strings.Builder
	if _, err := terminalForm(make(chan string), &out2)(ctx, termElicitRequest(t, schema)); err == nil {
		t.Error("an interrupted question returned no error")
	}
}

// TestElicitDeclinedWithoutATerminal: under --yes, or without a
// terminal, a question is declined and stderr says so.
func TestElicitDeclinedWithoutATerminal(t *testing.T) {
	var errOut strings.Builder
	f := newTermFrontend(&strings.Builder{}, &errOut, false)
	f.noAsk = "nobody is there to answer under --yes"
	res, err := f.Elicit(context.Background(), termElicitRequest(t, `{"type":"object","properties":{"a":{"type":"boolean"}}}`))
	if err != nil || res.Action != elicit.Decline || !strings.Contains(res.Note, "--yes") {
		t.Errorf("result %+v %v", res, err)
	}
	if want := "agent-ls: declined a question of the MCP server tick\\x1bets (nobody is there to answer under --yes)\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
}

package model

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

func TestResponsesVerbosityAndWebSearch(t *testing.T) {
	srv := newFake(t, fakemodel.Say("ok"))
	c := newClient(t, srv, WireResponses)
	req := &Request{Model: "gpt-5", Verbosity: "low", WebSearch: true, Tools: []Tool{{Type: ToolFunction, Name: "list"}}}
	if _, err := c.Stream(context.Background(), req, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].JSON
	jsonEqual(t, "text", body["text"], `{"verbosity":"low"}`)
	jsonEqual(t, "tools", body["tools"], `[
		{"type":"function","name":"list","strict":false,"parameters":{"type":"object","properties":{}}},
		{"type":"web_search"}
	]`)
}

// Chat Completions takes verbosity as a top-level field and has no hosted
// tools: web search is not offered.
func TestChatVerbosityWithoutWebSearch(t *testing.T) {
	srv := newFake(t, fakemodel.Say("ok"), fakemodel.Say("ok"))
	c := newClient(t, srv, WireChat)
	for _, tools := range [][]Tool{nil, {{Type: ToolFunction, Name: "list"}}} {
		req := &Request{Model: "gpt-5", Verbosity: "high", WebSearch: true, Tools: tools}
		if _, err := c.Stream(context.Background(), req, func(Event) {}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if v := reqs[0].JSON["verbosity"]; v != "high" {
		t.Errorf("verbosity %v", v)
	}
	if tools, ok := reqs[0].JSON["tools"]; ok {
		t.Errorf("tools sent without any: %v", tools)
	}
	jsonEqual(t, "tools", reqs[1].JSON["tools"], `[{"type":"function","function":{"name":"list","strict":false,"parameters":{"type":"object","properties":{}}}}]`)
}

// A web search the model made comes back as an item, and is sent back in
// the next request as it came (without its id); Chat Completions drops it.
func TestWebSearchCallRoundTrip(t *testing.T) {
	srv := newFake(t,
		fakemodel.Answer(fakemodel.WebSearch("go 1.25 release notes"), fakemodel.Message("Found ", "it.")),
		fakemodel.Say("ok"),
	)
	c := newClient(t, srv, WireResponses)
	history := []Item{{Type: ItemMessage, Role: RoleUser, Text: "search"}}
	var rec recorder
	resp, err := c.Stream(context.Background(), &Request{Model: "gpt-5", Input: history, WebSearch: true}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Output) != 2 {
		t.Fatalf("output %+v", resp.Output)
	}
	ws := resp.Output[0]
	if ws.Type != ItemWebSearchCall || ws.Status != "completed" {
		t.Errorf("web search item %+v", ws)
	}
	jsonEqual(t, "action", decode(t, ws.Action), `{"type":"search","query":"go 1.25 release notes"}`)
	if done := rec.of(ItemDone); len(done) != 2 || done[0].Item.Type != ItemWebSearchCall || done[1].Item.Text != "Found it." {
		t.Errorf("ItemDone events %+v", done)
	}
	// The search is announced when it begins, once, under the id its
	// ItemDone has, before it.
	started := rec.of(ItemStarted)
	if len(started) != 1 || started[0].Item.Type != ItemWebSearchCall || started[0].ItemID != resp.Output[0].ID || started[0].Item.Status != "in_progress" {
		t.Errorf("ItemStarted events %+v", started)
	}
	for _, e := range rec.events {
		if e.Kind == ItemDone && e.ItemID == resp.Output[0].ID {
			t.Error("the search's ItemDone came before its ItemStarted")
		}
		if e.Kind == ItemStarted {
			break
		}
	}
	history = append(history, resp.Output...)
	if _, err := c.Stream(context.Background(), &Request{Model: "gpt-5", Input: history}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "second input", srv.Requests()[1].JSON["input"], `[
		{"type":"message","role":"user","content":"search"},
		{"type":"web_search_call","status":"completed","action":{"type":"search","query":"go 1.25 release notes"}},
		{"type":"message","role":"assistant","content":"Found it."}
	]`)

	chat := newFake(t, fakemodel.Say("ok"))
	cc := newClient(t, chat, WireChat)
	if _, err := cc.Stream(context.Background(), &Request{Model: "m", Input: history}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "chat messages", chat.Requests()[0].JSON["messages"], `[
		{"role":"user","content":"search"},
		{"role":"assistant","content":"Found it."}
	]`)
}

// decode decodes raw JSON for jsonEqual.
func decode(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

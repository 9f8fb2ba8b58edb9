package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestWebSearchOfferedShownAndReplayed: with [tools] web_search = true the
// request offers the hosted web_search tool; the model's web_search_call
// is a webSearch event, goes back to the model in the next request, and
// a resumed session redraws it from the record.
func TestWebSearchOfferedShownAndReplayed(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, writeConfig(t, "[tools]\nweb_search = true\n")}
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.WebSearch("go 1.25 release notes"), fakemodel.Message("It is out.")),
		fakemodel.Say("later"),
	)
	t.Cleanup(m.Close)
	s := startOn(t, m, ws, env, editor.Config{}, editor.Options{Events: true})
	first := s.startTurn(map[string]any{"prompt": "is go 1.25 out?"})
	s.wait(first.TurnID)
	var searched []editor.Event
	for _, ev := range s.events(first.TurnID) {
		if ev.Type == "webSearch" {
			searched = append(searched, ev)
		}
	}
	// The search shows while it runs, then its end, under one call id.
	if len(searched) != 2 {
		t.Fatalf("%d webSearch events, want searching then completed", len(searched))
	}
	var ws0, ws1 struct{ CallID, Query, Status string }
	json.Unmarshal(searched[0].Raw, &ws0)
	json.Unmarshal(searched[1].Raw, &ws1)
	if ws0.Status != "searching" || ws0.CallID == "" {
		t.Errorf("first webSearch %s", searched[0].Raw)
	}
	if ws1.Query != "go 1.25 release notes" || ws1.Status != "completed" || ws1.CallID != ws0.CallID {
		t.Errorf("webSearch %s", searched[1].Raw)
	}
	second := s.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "thanks"})
	s.wait(second.TurnID)

	reqs := m.Requests()
	if !strings.Contains(string(reqs[0].Body), `{"type":"web_search"}`) {
		t.Errorf("the first request does not offer web_search: %s", requestTools(t, reqs[0]))
	}
	if b := string(reqs[1].Body); !strings.Contains(b, `"type":"web_search_call"`) || !strings.Contains(b, `"query":"go 1.25 release notes"`) {
		t.Errorf("the next request does not carry the search back")
	}
	// A new server reads the record, once the killed one is gone (its
	// lock on the record goes with it).
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.ed.WaitExit(s.ctx)
	m2 := fakemodel.New()
	t.Cleanup(m2.Close)
	s2 := startOn(t, m2, ws, env, editor.Config{}, editor.Options{Events: true})
	var res resumed
	if err := s2.ed.Request(s2.ctx, "agent/resumeSession", map[string]any{"sessionId": first.SessionID}, &res); err != nil {
		t.Fatal(err)
	}
	if got := itemTypes(res.Items); !strings.HasPrefix(got, "turnStarted,webSearch,message,turnCompleted,") {
		t.Errorf("history items %s", got)
	}
}

// Without the key, the tool is not offered.
func TestWebSearchOffByDefault(t *testing.T) {
	s := start(t, nil, fakemodel.Say("ok"))
	s.wait(s.startTurn(map[string]any{"prompt": "hi"}).TurnID)
	if strings.Contains(string(s.model.Requests()[0].Body), `"web_search"`) {
		t.Error("web_search offered without [tools] web_search = true")
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// inputTexts lists the text of each message of a logged Responses
// request's input.
func inputTexts(t *testing.T, req *fakemodel.Request) []string {
	t.Helper()
	var body struct {
		Input []struct {
			Content json.RawMessage `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, it := range body.Input {
		// Content is a string or a list of parts.
		var text string
		if json.Unmarshal(it.Content, &text) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			json.Unmarshal(it.Content, &parts)
			for _, p := range parts {
				text += p.Text
			}
		}
		out = append(out, text)
	}
	return out
}

// A conversation over model_auto_compact_token_limit is summarised before
// the next request by itself (a compacted event in the turn, the summary
// in the request that follows), and agent/compact does the same on
// demand, as a turn of its own, through the real server and the model's
// real wire format.
func TestCompactionThroughTheServer(t *testing.T) {
	env := []string{writeConfig(t, "model_auto_compact_token_limit = 1000\n")}
	big := strings.Repeat("lorem ipsum ", 300) // about 900 tokens
	// The usage each answer reports: the first takes the context near
	// the limit, the others stay small.
	say := func(text string, in int64) fakemodel.Step {
		return fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message(fakemodel.Words(text)...)},
			Usage: fakemodel.Usage{InputTokens: in, OutputTokens: 5}}}
	}
	s := start(t, env, say("first answer", 1000), say("AUTO SUMMARY", 1100), say("second answer", 200),
		say("MANUAL SUMMARY", 210), say("third answer", 150))
	first := s.startTurn(map[string]any{"prompt": "first " + big})
	s.wait(first.TurnID)
	second := s.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "second prompt"})
	if done := s.wait(second.TurnID); done.Status != "completed" || done.LastMessage != "second answer" {
		t.Fatalf("second turn: %+v", done)
	}
	var compacted []editor.Event
	for _, ev := range s.events(second.TurnID) {
		if ev.Type == "compacted" {
			compacted = append(compacted, ev)
		}
	}
	if len(compacted) != 1 || compacted[0].Summary != "AUTO SUMMARY" || compacted[0].TokensBefore < 1000 || compacted[0].TokensAfter >= compacted[0].TokensBefore {
		t.Errorf("compacted events of the second turn: %+v", compacted)
	}
	reqs := s.model.Requests()
	sum := inputTexts(t, reqs[1])
	if !strings.Contains(sum[len(sum)-1], "about to be cut to fit the model's context window") {
		t.Errorf("the summary request ends with %.80q", sum[len(sum)-1])
	}
	after := inputTexts(t, reqs[2])
	joined := strings.Join(after, "\n")
	if !strings.Contains(joined, "AUTO SUMMARY") || strings.Contains(joined, big) || after[len(after)-1] != "second prompt" {
		t.Errorf("the request after compaction: %.200q", after)
	}

	if err := s.ed.Request(s.ctx, "agent/compact", map[string]any{"sessionId": first.SessionID}, nil); err != nil {
		t.Fatalf("agent/compact: %v", err)
	}
	var manual []string
	for _, ev := range s.ed.Events() {
		if ev.SessionID == first.SessionID && ev.TurnID != first.TurnID && ev.TurnID != second.TurnID {
			manual = append(manual, string(ev.Type))
		}
	}
	// The answer came after the turn's events.
	if got := strings.Join(manual, ","); got != "turnStarted,compacted,usage,turnCompleted" {
		t.Errorf("events of agent/compact: %s", got)
	}
	third := s.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "third prompt"})
	s.wait(third.TurnID)
	last := strings.Join(inputTexts(t, s.model.Requests()[4]), "\n")
	if !strings.Contains(last, "MANUAL SUMMARY") || strings.Contains(last, "AUTO SUMMARY") {
		t.Errorf("the request after agent/compact: %.300q", last)
	}

	// Unknown sessions and empty conversations are clear errors.
	err := s.ed.Request(s.ctx, "agent/compact", map[string]any{"sessionId": "s-nope"}, nil)
	if err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("agent/compact of an unknown session: %v", err)
	}
	var fresh struct {
		SessionID string `json:"sessionId"`
	}
	if err := s.ed.Request(s.ctx, "agent/newSession", map[string]any{}, &fresh); err != nil {
		t.Fatal(err)
	}
	err = s.ed.Request(s.ctx, "agent/compact", map[string]any{"sessionId": fresh.SessionID}, nil)
	if err == nil || !strings.Contains(err.Error(), "nothing to compact") {
		t.Errorf("agent/compact of an empty session: %v", err)
	}
}

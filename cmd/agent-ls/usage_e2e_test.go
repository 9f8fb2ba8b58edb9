package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// limitedSay is an answer whose response carries x-ratelimit-* headers:
// 40 of 500 requests and 1200 of 30000 tokens left.
func limitedSay(text string) fakemodel.Step {
	st := fakemodel.Say(text)
	st.Reply.Header = http.Header{}
	for k, v := range map[string]string{
		"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "40", "x-ratelimit-reset-requests": "12s",
		"x-ratelimit-limit-tokens": "30000", "x-ratelimit-remaining-tokens": "1200", "x-ratelimit-reset-tokens": "6m0s",
	} {
		st.Reply.Header.Set(k, v)
	}
	return st
}

const limitsLine = "limits left: 40 requests (reset in 12s), 1.2k tokens (reset in 6m0s)"

// TestRateLimitsShown: the provider's rate-limit headers reach the usage
// event (agent/event), the progress message that ends the turn, exec's
// last line and ACP's usage_update.
func TestRateLimitsShown(t *testing.T) {
	t.Run("lsp", func(t *testing.T) {
		s := start(t, nil, limitedSay("ok"))
		turn := s.startTurn(map[string]any{"prompt": "hi"})
		s.wait(turn.TurnID)
		var usage struct {
			RateLimits map[string]int64 `json:"rateLimits"`
		}
		for _, ev := range s.events(turn.TurnID) {
			if ev.Type == "usage" {
				if err := json.Unmarshal(ev.Raw, &usage); err != nil {
					t.Fatal(err)
				}
			}
		}
		want := map[string]int64{"remainingRequests": 40, "remainingTokens": 1200, "resetRequestsMs": 12000, "resetTokensMs": 360000, "limitRequests": 500, "limitTokens": 30000}
		if len(usage.RateLimits) != len(want) {
			t.Fatalf("usage rateLimits %v, want %v", usage.RateLimits, want)
		}
		for k, v := range want {
			if usage.RateLimits[k] != v {
				t.Errorf("rateLimits.%s = %d, want %d", k, usage.RateLimits[k], v)
			}
		}
		end, err := s.ed.WaitProgress(s.ctx, func(p editor.Progress) bool { return p.Kind == "end" })
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(end.Message, "Done · ") || !strings.HasSuffix(end.Message, limitsLine) {
			t.Errorf("progress end %q", end.Message)
		}
	})
	t.Run("exec", func(t *testing.T) {
		m := fakemodel.New(limitedSay("ok"))
		defer m.Close()
		var stderr bytes.Buffer
		cmd := execCmd(t, m, "hi")
		cmd.Stderr = &stderr
		if code := exitCode(cmd.Run()); code != 0 {
			t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "agent-ls: ") || !strings.Contains(last, "tokens in") || !strings.HasSuffix(last, limitsLine) {
			t.Errorf("last line %q", last)
		}
	})
	t.Run("acp", func(t *testing.T) {
		m := fakemodel.New(limitedSay("ok"))
		t.Cleanup(m.Close)
		c := &acpClient{}
		r := startACP(t, m, t.TempDir(), t.TempDir(), c)
		r.initialize(false)
		id := r.newSession()
		if _, err := r.prompt(id, "hi"); err != nil {
			t.Fatal(err)
		}
		var found *sdk.SessionUsageUpdate
		c.mu.Lock()
		for _, n := range c.updates {
			if n.Update.UsageUpdate != nil {
				found = n.Update.UsageUpdate
			}
		}
		c.mu.Unlock()
		if found == nil {
			t.Fatal("no usage_update")
		}
		b, _ := json.Marshal(found.Meta)
		if !strings.Contains(string(b), `"rateLimits":{"limitRequests":500,"limitTokens":30000,"remainingRequests":40,"remainingTokens":1200,"resetRequestsMs":12000,"resetTokensMs":360000}`) {
			t.Errorf("usage_update _meta %s", b)
		}
	})
}

package model

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// The x-ratelimit-* headers of a streamed answer come back with the
// response, on both wires; an answer without them has none.
func TestRateLimitHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("x-ratelimit-limit-requests", "500")
	h.Set("x-ratelimit-remaining-requests", "499")
	h.Set("x-ratelimit-limit-tokens", "30000")
	h.Set("x-ratelimit-remaining-tokens", "1200")
	h.Set("x-ratelimit-reset-requests", "120ms")
	h.Set("x-ratelimit-reset-tokens", "6m0s")
	for _, wire := range []string{WireResponses, WireChat} {
		limited := fakemodel.Say("ok")
		limited.Reply.Header = h
		srv := newFake(t, limited, fakemodel.Say("ok"))
		c := newClient(t, srv, wire)
		resp, err := c.Stream(context.Background(), &Request{Model: "gpt-5"}, func(Event) {})
		if err != nil {
			t.Fatal(err)
		}
		want := RateLimits{LimitRequests: 500, RemainingRequests: 499, LimitTokens: 30000, RemainingTokens: 1200,
			ResetRequests: 120 * time.Millisecond, ResetTokens: 6 * time.Minute}
		if resp.RateLimits == nil || *resp.RateLimits != want {
			t.Errorf("%s: rate limits %+v, want %+v", wire, resp.RateLimits, want)
		}
		resp, err = c.Stream(context.Background(), &Request{Model: "gpt-5"}, func(Event) {})
		if err != nil || resp.RateLimits != nil {
			t.Errorf("%s: without headers: %+v %v", wire, resp.RateLimits, err)
		}
	}
}

func TestRateLimitHeaderForms(t *testing.T) {
	h := http.Header{}
	h.Set("x-ratelimit-remaining-tokens", "7")
	h.Set("x-ratelimit-reset-tokens", "1.5")
	h.Set("x-ratelimit-reset-requests", "soon")
	rl := rateLimits(h)
	if rl == nil || rl.RemainingTokens != 7 || rl.RemainingRequests != -1 || rl.LimitTokens != -1 ||
		rl.ResetTokens != 1500*time.Millisecond || rl.ResetRequests != -1 {
		t.Errorf("%+v", rl)
	}
}

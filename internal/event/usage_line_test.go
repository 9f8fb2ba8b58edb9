package event

import "testing"

func TestUsageLine(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	u := Usage{Total: &UsageTotal{InputTokens: 12_345, OutputTokens: 678}, ContextTokens: 54_400, ContextWindow: 272_000,
		RateLimits: &RateLimits{RemainingRequests: n(499), RemainingTokens: n(1_200), ResetTokensMs: n(360_000)}}
	want := "12k tokens in, 678 out · context 20% of 272k used · limits left: 499 requests, 1.2k tokens (reset in 6m0s)"
	if got := u.Line(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := (Usage{ContextTokens: 2_500_000}).Line(); got != "context 2.5M tokens" {
		t.Errorf("got %q", got)
	}
	if p, ok := (&RateLimits{RemainingTokens: n(5), LimitTokens: n(100), RemainingRequests: n(50)}).LowestPercent(); !ok || p != 5 {
		t.Errorf("lowest %v %v", p, ok)
	}
}

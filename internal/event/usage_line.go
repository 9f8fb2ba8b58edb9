package event

import (
	"fmt"
	"strings"
	"time"
)

// Line sums up a session's use in one line for a terminal or a progress
// message: its tokens, the share of the context window the next request
// fills, and the provider's limits left when it reports them.
func (u Usage) Line() string {
	var parts []string
	if t := u.Total; t != nil {
		parts = append(parts, fmt.Sprintf("%s tokens in, %s out", shortCount(t.InputTokens), shortCount(t.OutputTokens)))
	}
	if u.ContextWindow > 0 {
		parts = append(parts, fmt.Sprintf("context %d%% of %s used", u.ContextTokens*100/u.ContextWindow, shortCount(u.ContextWindow)))
	} else if u.ContextTokens > 0 {
		parts = append(parts, fmt.Sprintf("context %s tokens", shortCount(u.ContextTokens)))
	}
	if l := u.RateLimits.Line(); l != "" {
		parts = append(parts, l)
	}
	return strings.Join(parts, " · ")
}

// Line says what is left of the rate limits, "" when nothing is known.
func (r *RateLimits) Line() string {
	if r == nil {
		return ""
	}
	var left []string
	add := func(n, reset *int64, what string) {
		if n == nil {
			return
		}
		s := shortCount(*n) + " " + what
		if reset != nil && *reset > 0 {
			s += " (reset in " + (time.Duration(*reset) * time.Millisecond).Round(time.Second).String() + ")"
		}
		left = append(left, s)
	}
	add(r.RemainingRequests, r.ResetRequestsMs, "requests")
	add(r.RemainingTokens, r.ResetTokensMs, "tokens")
	if len(left) == 0 {
		return ""
	}
	return "limits left: " + strings.Join(left, ", ")
}

// shortCount writes n as 950, 12.3k or 1.2M.
func shortCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	case n >= 10_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n >= 1000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e3), ".0") + "k"
	}
	return fmt.Sprint(n)
}

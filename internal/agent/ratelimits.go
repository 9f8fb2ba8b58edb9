package agent

import (
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
)

// usageRateLimits turns the model's rate limits into the usage event's.
func usageRateLimits(rl *model.RateLimits) *event.RateLimits {
	if rl == nil {
		return nil
	}
	count := func(n int64) *int64 {
		if n < 0 {
			return nil
		}
		return &n
	}
	ms := func(d time.Duration) *int64 {
		if d < 0 {
			return nil
		}
		n := d.Milliseconds()
		return &n
	}
	return &event.RateLimits{
		RemainingRequests: count(rl.RemainingRequests), RemainingTokens: count(rl.RemainingTokens),
		ResetRequestsMs: ms(rl.ResetRequests), ResetTokensMs: ms(rl.ResetTokens),
		LimitRequests: count(rl.LimitRequests), LimitTokens: count(rl.LimitTokens),
	}
}

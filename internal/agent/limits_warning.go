package agent

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/agent-ls/agent-ls/internal/event"
)

// LimitQuestionID is the id of the question a turn asks before its first
// request when it comes near a limit (see warnNearLimit); its options are
// LimitCompactFirst and LimitGoOn.
const LimitQuestionID = "contextLimit"

// LimitQuestionTail ends the limit question, after why it is asked.
const LimitQuestionTail = " Compact the conversation first, or go on as it is?"

// The options of the limit question.
const (
	LimitCompactFirst = "Compact first"
	LimitGoOn         = "Go on"
)

// warnNearLimit asks the user, before the turn's first request, what to
// do when its history and prompt fill more of the context window than
// context_warning_percent, or the provider's last answer left less of a
// rate limit than rate_limit_warning_percent: compact the conversation
// first (the compaction agent/compact runs) or go on. A frontend that
// cannot ask, or an answer that does not come, goes on. It reports
// whether the turn was interrupted meanwhile.
func (t *turn) warnNearLimit(ctx context.Context, fam family, log *slog.Logger) (interrupted bool) {
	s := t.s
	why := s.nearLimit(fam)
	if why == "" {
		return false
	}
	fe, ok := s.mgr.opts.Frontend.(Asker)
	if !ok {
		log.Warn("near a limit; nobody to ask, the turn goes on", "why", why)
		return false
	}
	q := Question{ID: LimitQuestionID, Header: "Limits", Question: why + LimitQuestionTail,
		Options: []QuestionOption{
			{Label: LimitCompactFirst, Description: "Summarise the older conversation now, then run the prompt"},
			{Label: LimitGoOn, Description: "Run the prompt with the conversation as it is"},
		}}
	answers, err := fe.AskUser(ctx, &AskRequest{SessionID: s.info.SessionID, TurnID: t.id, CallID: LimitQuestionID, Questions: []Question{q}})
	if ctx.Err() != nil {
		return true
	}
	if err != nil {
		log.Info("near a limit; the question could not be asked, the turn goes on", "why", why, "err", err)
		return false
	}
	if len(answers) == 0 || answers[0].Label != LimitCompactFirst {
		return false
	}
	log.Info("compacting before the turn, as the user chose")
	return t.autoCompact(ctx, fam, s.toolSnapshot(ctx).Specs(), log)
}

// nearLimit says why the next request comes near a limit, or "".
func (s *session) nearLimit(fam family) string {
	if p := s.cfg.ContextWarningPercent; p > 0 {
		if w := s.contextWindow(fam); w > 0 {
			if est := s.contextEstimate(); est*100 > w*p {
				return fmt.Sprintf("The conversation and this prompt fill about %d%% of the model's context window (%d of %d tokens).", est*100/w, est, w)
			}
		}
	}
	if p := s.cfg.RateLimitWarningPercent; p > 0 {
		s.mu.Lock()
		rl := s.rateLimits
		s.mu.Unlock()
		if left, ok := rl.LowestPercent(); ok && left < float64(p) {
			return fmt.Sprintf("The provider's rate limit is nearly used up: %.0f%% left (%s).", left, rl.Line())
		}
	}
	return ""
}

// keepRateLimits keeps the rate limits a response reported, for the next
// turn's warning.
func (s *session) keepRateLimits(rl *event.RateLimits) {
	if rl == nil {
		return
	}
	s.mu.Lock()
	s.rateLimits = rl
	s.mu.Unlock()
}

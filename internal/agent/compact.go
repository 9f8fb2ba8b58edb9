package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// Compaction: when a conversation grows near the model's context window,
// the agent asks the model for a summary of it and goes on with a shorter
// history: the session's context items (written anew), the prompt of the
// turn under way, the summary, and the most recent items as they were.

//go:embed compact.md
var compactPrompt string

//go:embed compact_summary.md
var compactSummaryPrefix string

// CompactPrompt is the prompt of a turn that only compacts the history
// (Manager.Compact), as its turnStarted event shows it.
const CompactPrompt = "/compact"

// ErrNothingToCompact: the session has no conversation to summarise yet.
var ErrNothingToCompact = errors.New("the conversation is empty: there is nothing to compact")

const (
	// autoCompactPercent of the context window is where a history is
	// compacted when no model_auto_compact_token_limit is set.
	autoCompactPercent = 90
	// manualTailTokens is how much recent history a compaction keeps
	// verbatim when no limit is known (agent/compact on an unknown model).
	manualTailTokens = 20_000
	// imageTokens is what an image is taken to cost: a high-detail tile
	// set, the usual size of a screenshot.
	imageTokens = 765
	// itemOverheadTokens is what an item costs beyond its text (role,
	// type, ids).
	itemOverheadTokens = 4
)

// contextWindow is the session's model context window in tokens: the
// configured one, else the model family's, 0 when unknown.
func (s *session) contextWindow(fam family) int64 {
	if s.cfg.ContextWindow > 0 {
		return s.cfg.ContextWindow
	}
	return fam.contextWindow
}

// autoCompactLimit is the estimated context size at which the history is
// compacted before the next request: model_auto_compact_token_limit, else
// 90% of the context window; 0 when neither is known (never).
func (s *session) autoCompactLimit(fam family) int64 {
	if s.cfg.AutoCompactTokenLimit > 0 {
		return s.cfg.AutoCompactTokenLimit
	}
	return s.contextWindow(fam) * autoCompactPercent / 100
}

// contextEstimate is what the next request will carry: the tokens the
// model reported for the last request and its answer, plus an estimate of
// the items added since.
func (s *session) contextEstimate() int64 {
	items := s.history.Items()
	n, base := s.reported.items, s.reported.tokens
	if n > len(items) {
		n, base = 0, 0
	}
	return base + estimateTokens(items[n:])
}

// estimateTokens guesses the tokens of items from their text, at four
// bytes a token, the usual ratio for English and code. Encrypted
// reasoning is not counted: the API drops it from older turns.
func estimateTokens(items []model.Item) int64 {
	var n int64
	for i := range items {
		n += itemTokens(&items[i])
	}
	return n
}

func itemTokens(it *model.Item) int64 {
	b := len(it.Text) + len(it.Name) + len(it.Arguments) + len(it.Input) + len(it.Output)
	for _, s := range it.Summary {
		b += len(s)
	}
	for _, s := range it.ReasoningText {
		b += len(s)
	}
	return int64(b/4) + int64(len(it.Images))*imageTokens + itemOverheadTokens
}

// isContextItem reports whether it is one of the items the session's
// history starts with (the AGENTS.md chain, the environment context), or
// an environment context sent later when the settings changed: a
// compaction writes those anew instead of keeping old ones.
func isContextItem(it *model.Item) bool {
	if it.Type != model.ItemMessage || it.Role != model.RoleUser {
		return false
	}
	return strings.HasPrefix(it.Text, "<environment_context>") || strings.HasPrefix(it.Text, agentsDocHeader)
}

// tailStart returns where the most recent items that fit in budget tokens
// begin, moved forward to a place where the history can be cut: a message
// or reasoning item, with every call output after it answering a call
// after it too. Context items are never part of a tail. len(items) means
// nothing fits.
func tailStart(items []model.Item, budget int64) int {
	start := len(items)
	var used int64
	for i := len(items) - 1; i >= 0; i-- {
		if isContextItem(&items[i]) {
			break
		}
		if used += itemTokens(&items[i]); used > budget {
			break
		}
		start = i
	}
	callAt := make(map[string]int)
	for i, it := range items {
		if it.Type == model.ItemFunctionCall || it.Type == model.ItemCustomToolCall {
			callAt[it.CallID] = i
		}
	}
	// earliest[i] is the earliest call answered by an output at i or after.
	earliest := make([]int, len(items)+1)
	earliest[len(items)] = len(items)
	for i := len(items) - 1; i >= 0; i-- {
		earliest[i] = earliest[i+1]
		it := items[i]
		if it.Type == model.ItemFunctionCallOutput || it.Type == model.ItemCustomToolCallOutput {
			if at, ok := callAt[it.CallID]; ok && at < earliest[i] {
				earliest[i] = at
			}
		}
	}
	for ; start < len(items); start++ {
		t := items[start].Type
		if (t == model.ItemMessage || t == model.ItemReasoning) && earliest[start] >= start {
			break
		}
	}
	return start
}

// summaryInput is the history a summary is asked of: all of it when it
// fits the window, else its most recent items that do (the oldest are
// lost), with the context items first.
func summaryInput(items []model.Item, window int64) (input []model.Item, dropped int) {
	if window <= 0 || estimateTokens(items) <= window*autoCompactPercent/100 {
		return items, 0
	}
	var head []model.Item
	var budget = window * autoCompactPercent / 100
	for i := range items {
		if isContextItem(&items[i]) {
			head = append(head, items[i])
			budget -= itemTokens(&items[i])
		}
	}
	start := tailStart(items, budget)
	input = append(head, items[start:]...)
	return input, len(items) - len(input)
}

// errNothingToSummarise: all but the context items and the turn's prompt
// would be kept as they are; a summary would only add to them.
var errNothingToSummarise = errors.New("nothing to summarise: the conversation is its current prompt and its recent items")

// summarisable reports whether items hold anything to summarise besides
// the context items and the prompt at promptAt.
func summarisable(items []model.Item, promptAt int) bool {
	for i := range items {
		if i != promptAt && !isContextItem(&items[i]) {
			return true
		}
	}
	return false
}

// compact replaces the session's history by a summary of it and the most
// recent items, and tells the client with a compacted event. The prompt
// of the turn under way stays in the history, before the summary when the
// kept items do not reach back to it.
func (t *turn) compact(ctx context.Context, fam family, specs []tools.Spec) error {
	s := t.s
	items := s.history.Items()
	before := s.contextEstimate()
	// The most recent items stay as they are: a fifth of the limit, and
	// at most a quarter of the conversation, so a compaction always has
	// something to summarise.
	budget := int64(manualTailTokens)
	if limit := s.autoCompactLimit(fam); limit > 0 {
		budget = limit / 5
	}
	var conversation int64
	for i := range items {
		if !isContextItem(&items[i]) {
			conversation += itemTokens(&items[i])
		}
	}
	cut := tailStart(items, min(budget, conversation/4))
	if !summarisable(items[:cut], t.promptAt) {
		return errNothingToSummarise
	}
	window := s.contextWindow(fam)
	input, dropped := summaryInput(items, window)
	if dropped > 0 {
		s.mgr.log.Warn("the conversation is larger than the context window: its oldest items are left out of the summary",
			"session", s.info.SessionID, "items", dropped)
	}
	// The same instructions, tools and history as the turn's requests, so
	// the prompt cache serves all but the question at the end.
	req := t.newRequest(fam, specs, append(input[:len(input):len(input)],
		model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: compactPrompt}))
	resp, err := s.client.Stream(ctx, req, func(ev model.Event) {
		if ev.Kind == model.Retrying {
			t.emit(event.Retry{Attempt: ev.Retry.Attempt, DelayMs: ev.Retry.DelayMs, Message: ev.Retry.Message})
		}
	})
	if err != nil {
		return fmt.Errorf("summarising the conversation: %w", err)
	}
	var summary strings.Builder
	for _, it := range resp.Output {
		if it.Type == model.ItemMessage && it.Role != model.RoleUser && strings.TrimSpace(it.Text) != "" {
			if summary.Len() > 0 {
				summary.WriteString("\n\n")
			}
			summary.WriteString(strings.TrimSpace(it.Text))
		}
	}
	if summary.Len() == 0 {
		return errors.New("summarising the conversation: the model answered without a summary")
	}

	next := s.contextItems()
	promptAt := -1
	if t.promptAt >= 0 && t.promptAt < cut {
		promptAt = len(next)
		next = append(next, items[t.promptAt])
	}
	next = append(next, model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: compactSummaryPrefix + summary.String()})
	for i := cut; i < len(items); i++ {
		if i == t.promptAt {
			promptAt = len(next)
		}
		if !isContextItem(&items[i]) {
			next = append(next, items[i])
		}
	}
	t.promptAt = promptAt
	s.history.Replace(next)
	s.reported.tokens, s.reported.items = 0, 0
	s.changed = false // the context items are the current settings'
	after := estimateTokens(next)
	s.mgr.log.Info("compacted the conversation", "session", s.info.SessionID, "items_before", len(items), "items_after", len(next),
		"tokens_before", before, "tokens_after", after)
	t.emit(event.Compacted{Summary: summary.String(), TokensBefore: before, TokensAfter: after})
	t.reportUsage(fam, resp, after)
	return nil
}

// Compact starts a turn that only compacts the session's history, as
// agent/compact asks; its handle is waited on like a turn's. A turn
// already running is ErrTurnRunning, an empty conversation
// ErrNothingToCompact.
func (m *Manager) Compact(sessionID string) (*Turn, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	return s.startTurn(TurnInput{Prompt: CompactPrompt}, true)
}

// runCompaction is the loop of a turn that only compacts.
func (t *turn) runCompaction(ctx context.Context) {
	s := t.s
	t.emit(event.TurnStarted{Prompt: t.input.Prompt})
	fam := familyFor(s.info.Model, s.mgr.log)
	snap := t.questionTools(s.toolSnapshot(ctx))
	status, errText := event.StatusCompleted, ""
	if err := t.compact(ctx, fam, snap.Specs()); err != nil {
		status, errText = event.StatusFailed, err.Error()
		if ctx.Err() != nil {
			status, errText = event.StatusInterrupted, ""
		}
	}
	t.result = TurnResult{Status: status, Error: errText}
	close(t.ending)
	t.emit(event.TurnCompleted{Status: status, Error: errText})
	t.ended(status)
}

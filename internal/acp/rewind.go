package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
)

// rewind is /rewind [N]: the conversation and the files go back to before
// the last turn, or the session's N-th turn (1-based).
func (s *server) rewind(ctx context.Context, a Agent, ss *session, args string) (string, error) {
	turn := strings.TrimSpace(args)
	if turn != "" {
		if n, err := strconv.Atoi(turn); err != nil || n < 1 {
			return "", fmt.Errorf("/rewind takes a turn number (1 is the first turn), not %q", turn)
		}
	}
	ss.mu.Lock()
	agentID, cwd := ss.agentID, ss.info.Cwd
	ss.mu.Unlock()
	res, err := a.Rewind(ctx, agentID, turn, "")
	if err != nil {
		return "", fmt.Errorf("rewind: %w", err)
	}
	ss.mu.Lock()
	ss.changing = slices.DeleteFunc(ss.changing, func(t string) bool { return slices.Contains(res.Rewound, t) })
	ss.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Rewound %d turn(s): the model no longer sees them.", len(res.Rewound))
	for _, p := range res.Files {
		b.WriteString("\n- restored " + relTo(p, cwd))
	}
	for _, c := range res.Conflicts {
		b.WriteString("\n- conflict, left as it is: " + relTo(c.Path, cwd) + " (" + c.Reason + ")")
	}
	for _, n := range res.NotRestored {
		b.WriteString("\n- not restored: " + relTo(n.Path, cwd) + " (" + n.Reason + ")")
	}
	return b.String(), nil
}

// rewoundTurns are the turns a session's kept events say were rewound.
func rewoundTurns(items []json.RawMessage) map[string]bool {
	out := map[string]bool{}
	for _, raw := range items {
		if !strings.Contains(string(raw), `"rewound"`) {
			continue
		}
		if ev, err := event.Parse(raw); err == nil {
			if r, ok := ev.Payload.(event.Rewound); ok {
				for _, t := range r.TurnIDs {
					out[t] = true
				}
			}
		}
	}
	return out
}

package agent

import (
	_ "embed"
	"errors"
	"fmt"
	"os"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// Plan mode: a session whose turns investigate without changing anything
// and end with a plan, which the user approves (the session goes back to
// the default mode and a turn carries the plan out) or refines.

// Mode is how a session works.
type Mode string

// The modes of a session.
const (
	// ModeDefault: the approval policy and sandbox decide what runs.
	ModeDefault Mode = "default"
	// ModePlan: commands run in the read-only sandbox; file changes,
	// escalations, MCP tools not marked read-only and input for command
	// sessions that may write are refused without asking; the model is
	// asked to end with a plan.
	ModePlan Mode = "plan"
)

// Errors of the mode API.
var (
	ErrUnknownMode = errors.New("unknown mode")
	ErrNotPlanning = errors.New("the session is not in plan mode")
	ErrNoPlan      = errors.New("there is no plan to approve yet")
)

// ApprovePrompt is the prompt of the turn that carries out an approved
// plan; the plan itself is in the history already.
const ApprovePrompt = "Plan approved: plan mode is off. Carry out the plan above."

//go:embed plan_mode.md
var planInstructions string

// ParseMode reads a mode's name; "" is the default mode.
func ParseMode(name string) (Mode, error) {
	switch Mode(name) {
	case "", ModeDefault:
		return ModeDefault, nil
	case ModePlan:
		return ModePlan, nil
	}
	return "", fmt.Errorf("%w %q (want %q or %q)", ErrUnknownMode, name, ModeDefault, ModePlan)
}

// SetMode switches the session to mode, and sends modeChanged when that
// is a change. A running turn keeps the mode it started with: the next
// turn (a queued prompt's too) runs in the new one.
func (m *Manager) SetMode(sessionID string, mode Mode) error {
	mode, err := ParseMode(string(mode))
	if err != nil {
		return err
	}
	s, err := m.session(sessionID)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.opts
	o.Mode = mode
	_, err = s.choose(o)
	return err
}

// ApprovePlan approves the session's plan: the session goes back to the
// default mode and a turn carries the plan out (prompt ApprovePrompt). The
// session must be in plan mode, with a plan: a turn in plan mode that
// completed since plan mode began, or one that runs now. While a turn
// runs, the approval waits in the queue like a prompt, and the mode
// changes when its turn starts; approving again while it waits answers
// the same turn.
func (m *Manager) ApprovePlan(sessionID string) (Submitted, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return Submitted{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := s.queue.approval(); i >= 0 {
		it := &s.queue.items[i]
		if it.wait == nil { // restored from the record
			it.wait = newWaiter()
		}
		return Submitted{TurnID: it.id, Queued: true, Waiting: len(s.queue.items), Turn: it.wait.turn(it.id)}, nil
	}
	if s.mode() != ModePlan {
		return Submitted{}, fmt.Errorf("%w: there is no plan to approve", ErrNotPlanning)
	}
	in := TurnInput{Prompt: ApprovePrompt}
	t := s.busy()
	if t == nil {
		if !s.planned {
			return Submitted{}, fmt.Errorf("%w: send a prompt in plan mode first, and approve its plan once the turn completed", ErrNoPlan)
		}
		turn, err := s.launchQueued(queuedPrompt{in: in, mode: ModeDefault})
		if err != nil {
			return Submitted{}, err
		}
		return Submitted{TurnID: turn.ID(), Turn: turn}, nil
	}
	if !s.planned && !t.plan {
		return Submitted{}, fmt.Errorf("%w: turn %s does not run in plan mode; approve once a turn in plan mode completed", ErrNoPlan, t.id)
	}
	if err := s.queue.admit(in.Prompt); err != nil {
		return Submitted{}, err
	}
	id, w := s.nextTurnID(), newWaiter()
	s.queue.items = append(s.queue.items, queuedPrompt{id: id, in: in, wait: w, mode: ModeDefault})
	s.mgr.log.Info("plan approval queued", "session", s.info.SessionID, "turn", id, "behind", t.id)
	s.emitQueue(t.id)
	return Submitted{TurnID: id, Queued: true, Waiting: len(s.queue.items), Turn: w.turn(id)}, nil
}

// mode is the mode the session's next turn runs in. Called with s.mu
// held.
func (s *session) mode() Mode {
	if s.opts.Mode == ModePlan {
		return ModePlan
	}
	return ModeDefault
}

// modeChanged reports the session's new mode; a plan made before is no
// longer one to approve. Called with s.mu held.
func (s *session) modeChanged(mode Mode) {
	s.planned = false
	s.mgr.log.Info("mode changed", "session", s.info.SessionID, "mode", mode)
	s.emit(s.runningID(), event.ModeChanged{Mode: string(mode)})
}

// launchQueued starts the turn of it, a prompt that may switch the mode
// first (an approval). Called with s.mu held and no turn running.
func (s *session) launchQueued(it queuedPrompt) (*Turn, error) {
	if it.mode != "" && it.mode != s.mode() {
		o := s.opts
		o.Mode = it.mode
		if _, err := s.choose(o); err != nil {
			return nil, err
		}
	}
	return s.launch(it.in, false, it.id, it.wait)
}

// planEnded notes a plan to approve when turn t, which ran in plan
// mode, completed while the session is still in plan mode. Called with
// s.mu held.
func (s *session) planEnded(t *turn) {
	if t.plan && t.result.Status == event.StatusCompleted && s.mode() == ModePlan {
		s.planned = true
	}
}

// turn is the handle of the queued prompt id that w waits for.
func (w *waiter) turn(id string) *Turn { return NewTurn(id, w.done, &w.result) }

// approval is the index of the queued approval of a plan, -1 when none
// waits.
func (q *promptQueue) approval() int {
	for i, it := range q.items {
		if it.mode != "" {
			return i
		}
	}
	return -1
}

// readOnlyBoundary is the session's boundary with the read-only sandbox:
// what a turn in plan mode runs its commands with.
func (s *session) readOnlyBoundary() (*policy.Boundary, error) {
	temp := policy.WritableTempRoots(os.Getenv("TMPDIR"), s.cfg.ExcludeTmpdirEnvVar, s.cfg.ExcludeSlashTmp)
	b, err := policy.NewBoundary(policy.ReadOnly, s.info.Cwd, s.cfg.WritableRoots, temp)
	if err != nil {
		return nil, fmt.Errorf("plan mode's read-only boundary: %w", err)
	}
	return b.WithOwn(s.cfg.OwnFiles), nil
}

// planRefusal is the output of an action plan mode refuses.
func planRefusal(what string) string {
	return "refused: plan mode is on, and " + what + ". In plan mode agent-ls changes nothing and runs commands only in the read-only sandbox, without asking, until the user approves the plan (which ends plan mode). Investigate with read-only tools and finish with the plan: update_plan with the steps, and the plan in your answer."
}

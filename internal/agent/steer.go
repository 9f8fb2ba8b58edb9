package agent

import (
	"errors"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/event"
)

// ErrModeSwitchSteer: a queued prompt that changes the session's mode
// (an approved plan) cannot join the running turn.
var ErrModeSwitchSteer = errors.New("this queued prompt cannot be sent into the running turn")

// steerNote tells the model that the message after it came while it
// worked.
const steerNote = "[The user sent this message while you were working on the turn. Take it into account from here on.]\n\n"

// SteerResult is what became of a steer: it joined the running turn
// turnID, or, with no turn running, started turn turnID (Started).
type SteerResult struct {
	TurnID  string `json:"turnId"`
	Started bool   `json:"started"`
	// Turn ends when the message's turn has: the one it started, or the
	// one it joined (or, too late for that one, its own from the queue).
	Turn *Turn `json:"-"`
}

// steerMsg is a message of the user for the running turn.
type steerMsg struct {
	in TurnInput
	// from is the queued prompt's turn id it came from, if any, and wait
	// how its sender waits for it (told how the turn it joins ends).
	from string
	wait *waiter
}

// Steer adds a message to the session's running turn: it enters the
// history as a user message before the model's next request, after the
// tool calls in flight have ended, and a steered event says where. With
// queuedTurnID set, in is ignored and that waiting prompt is taken out of
// the queue and sent instead ("Send now"). With no turn running, the
// message starts a turn. A steer the turn did not take before it ended
// waits first in the queue.
func (m *Manager) Steer(sessionID string, in TurnInput, queuedTurnID string) (SteerResult, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return SteerResult{}, err
	}
	if err := s.boundInput(&in); err != nil {
		return SteerResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.busy()
	if queuedTurnID != "" {
		if t != nil && t.id == queuedTurnID {
			// It started on its own meanwhile.
			return SteerResult{TurnID: t.id, Started: true}, nil
		}
		if i := s.queue.find(queuedTurnID); t != nil && i >= 0 && s.queue.items[i].mode != "" {
			return SteerResult{}, fmt.Errorf("%w: turn %s approves the plan and changes the mode, so it runs as a turn of its own when turn %s ends", ErrModeSwitchSteer, queuedTurnID, t.id)
		}
		it, ok := s.queue.take(queuedTurnID)
		if !ok {
			return SteerResult{}, notQueued(queuedTurnID)
		}
		if t == nil {
			s.emitQueue("")
			turn, err := s.launchQueued(it)
			if err != nil {
				s.queue.items = append([]queuedPrompt{it}, s.queue.items...)
				return SteerResult{}, err
			}
			return SteerResult{TurnID: turn.ID(), Started: true, Turn: turn}, nil
		}
		if it.wait == nil { // restored from the record
			it.wait = newWaiter()
		}
		s.queue.pending = append(s.queue.pending, steerMsg{in: it.in, from: it.id, wait: it.wait})
		s.emitQueue(t.id)
		return SteerResult{TurnID: t.id, Turn: it.wait.turn(t.id)}, nil
	}
	if t == nil {
		turn, err := s.launch(in, false, "", nil)
		if err != nil {
			return SteerResult{}, err
		}
		return SteerResult{TurnID: turn.ID(), Started: true, Turn: turn}, nil
	}
	if err := s.queue.admit(in.Prompt); err != nil {
		return SteerResult{}, err
	}
	w := newWaiter()
	s.queue.pending = append(s.queue.pending, steerMsg{in: in, wait: w})
	s.mgr.log.Info("steer for the running turn", "session", s.info.SessionID, "turn", t.id)
	return SteerResult{TurnID: t.id, Turn: w.turn(t.id)}, nil
}

// takeSteers puts the messages the user sent for the turn into the
// history, each with a steered event; the turn calls it before each
// model request, when no tool call of it runs.
func (t *turn) takeSteers() {
	s := t.s
	s.mu.Lock()
	pending := s.queue.pending
	s.queue.pending = nil
	s.mu.Unlock()
	for _, st := range pending {
		if st.wait != nil {
			t.steered = append(t.steered, st.wait)
		}
		it := userMessage(st.in, s.info.Cwd)
		it.Text = steerNote + it.Text
		s.history.Append(it)
		t.emit(event.Steered{Text: st.in.Prompt, QueuedTurnID: st.from})
	}
}

// steersWaiting reports whether the user sent the turn a message it has
// not taken yet: a turn the model would end goes on to answer it.
func (t *turn) steersWaiting() bool {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue.pending) > 0
}

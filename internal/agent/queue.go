package agent

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
)

// Limits of a session's queue: how many prompts wait (steers not yet
// taken by the running turn count too), and how long one may be.
const (
	MaxQueued            = 100
	MaxQueuedPromptBytes = 64 << 10
)

// Errors of the queue API.
var (
	ErrQueueFull     = fmt.Errorf("the queue is full (%d prompts wait already)", MaxQueued)
	ErrPromptTooLong = fmt.Errorf("the prompt is longer than the %d KiB a waiting prompt may have", MaxQueuedPromptBytes>>10)
	ErrNotQueued     = errors.New("no such prompt waits in the queue")
	ErrEmptyPrompt   = errors.New("the prompt is empty")
)

// Submitted is what became of a prompt given to Submit: a turn started
// now (Turn set) or a place in the queue under the turn id it will run
// with.
type Submitted struct {
	TurnID string
	Queued bool
	// Waiting is how many prompts wait in the queue now, this one too.
	Waiting int
	// Turn is the turn started, or the queued prompt's: its Done closes
	// when the prompt's turn has ended, or when the prompt left the
	// queue without a turn of its own (removed, emptied: status
	// interrupted; sent into a running turn: how that turn ended).
	Turn *Turn
}

// promptQueue is a session's waiting prompts and the steers its running
// turn has yet to take. Guarded by session.mu.
type promptQueue struct {
	items []queuedPrompt
	// paused: the queue waits for the user (the turn before it was
	// interrupted or failed, or the session was restored).
	paused bool
	// pending are the steers of the running turn, taken at its next
	// model request.
	pending []steerMsg
}

type queuedPrompt struct {
	id string
	in TurnInput
	// wait is how its sender waits for it; nil when nobody does (a
	// restored queue, a steer the turn did not take).
	wait *waiter
	// mode is the mode its turn switches the session to (an approved
	// plan's: ModeDefault); "" leaves the mode as it is.
	mode Mode
}

// waiter is how the sender of a queued prompt waits for its turn.
type waiter struct {
	done   chan struct{}
	result TurnResult
}

func newWaiter() *waiter { return &waiter{done: make(chan struct{})} }

// end reports how the prompt's turn ended; a nil waiter has nobody to
// tell.
func (w *waiter) end(r TurnResult) {
	if w != nil {
		w.result = r
		close(w.done)
	}
}

// removed is the result of a prompt taken out of the queue unrun.
var removed = TurnResult{Status: event.StatusInterrupted, Error: "the prompt was taken out of the queue"}

// Submit starts a turn of in, or, while a turn runs, queues it: it runs
// as its own turn, in order, when the turns before it have completed.
func (m *Manager) Submit(sessionID string, in TurnInput) (Submitted, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return Submitted{}, err
	}
	if err := s.boundInput(&in); err != nil {
		return Submitted{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.busy()
	if t == nil {
		turn, err := s.launch(in, false, "", nil)
		if err != nil {
			return Submitted{}, err
		}
		return Submitted{TurnID: turn.ID(), Turn: turn}, nil
	}
	if err := s.queue.admit(in.Prompt); err != nil {
		return Submitted{}, err
	}
	id, w := s.nextTurnID(), newWaiter()
	s.queue.items = append(s.queue.items, queuedPrompt{id: id, in: in, wait: w})
	s.noteCarried(id, in)
	s.mgr.log.Info("prompt queued", "session", s.info.SessionID, "turn", id, "behind", t.id, "waiting", len(s.queue.items))
	s.emitQueue(t.id)
	return Submitted{TurnID: id, Queued: true, Waiting: len(s.queue.items), Turn: NewTurn(id, w.done, &w.result)}, nil
}

// UpdateQueued replaces the text of a waiting prompt (what it carries
// besides, context and images, stays).
func (m *Manager) UpdateQueued(sessionID, turnID, prompt string) error {
	return m.withQueue(sessionID, func(s *session) error {
		if err := checkPrompt(prompt); err != nil {
			return err
		}
		i := s.queue.find(turnID)
		if i < 0 {
			return notQueued(turnID)
		}
		s.queue.items[i].in.Prompt = prompt
		return nil
	})
}

// RemoveQueued takes a waiting prompt out of the queue.
func (m *Manager) RemoveQueued(sessionID, turnID string) error {
	return m.withQueue(sessionID, func(s *session) error {
		it, ok := s.queue.take(turnID)
		if !ok {
			return notQueued(turnID)
		}
		it.wait.end(removed)
		return nil
	})
}

// ClearQueue empties the session's queue (Agent: Stop stops the prompts
// waiting too).
func (m *Manager) ClearQueue(sessionID string) error {
	return m.withQueue(sessionID, func(s *session) error {
		if len(s.queue.items) == 0 {
			return errUnchanged
		}
		for _, it := range s.queue.items {
			it.wait.end(removed)
		}
		s.queue.items = nil
		return nil
	})
}

// errUnchanged: a queue operation changed nothing, and no queueChanged
// goes out.
var errUnchanged = errors.New("unchanged")

// withQueue runs change on the session's queue and reports the change.
func (m *Manager) withQueue(sessionID string, change func(*session) error) error {
	s, err := m.session(sessionID)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := change(s); err != nil {
		if errors.Is(err, errUnchanged) {
			return nil
		}
		return err
	}
	s.emitQueue(s.runningID())
	return nil
}

// ResumeQueue lets a paused queue go on: its first prompt starts now when
// no turn runs (its turn id is returned), or when the running turn ends.
// A queue that does not wait changes nothing.
func (m *Manager) ResumeQueue(sessionID string) (string, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.busy(); t != nil {
		if s.queue.paused {
			s.queue.paused = false
			s.emitQueue(t.id)
		}
		return "", nil
	}
	s.queue.paused = false
	if len(s.queue.items) == 0 {
		return "", nil
	}
	return s.startNext()
}

// QueueOf returns the session's waiting prompts and whether the queue is
// paused.
func (m *Manager) QueueOf(sessionID string) ([]event.QueuedPrompt, bool, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queue.snapshot(), s.queue.paused, nil
}

// admit checks that one more prompt may wait.
func (q *promptQueue) admit(prompt string) error {
	if err := checkPrompt(prompt); err != nil {
		return err
	}
	if len(q.items)+len(q.pending) >= MaxQueued {
		return ErrQueueFull
	}
	return nil
}

func checkPrompt(prompt string) error {
	if strings.TrimSpace(prompt) == "" {
		return ErrEmptyPrompt
	}
	if len(prompt) > MaxQueuedPromptBytes {
		return fmt.Errorf("%w (it has %d KiB)", ErrPromptTooLong, (len(prompt)+1023)>>10)
	}
	return nil
}

func notQueued(turnID string) error {
	return fmt.Errorf("%w: turn %s (it may have started already)", ErrNotQueued, turnID)
}

func (q *promptQueue) find(turnID string) int {
	for i, it := range q.items {
		if it.id == turnID {
			return i
		}
	}
	return -1
}

// take removes the waiting prompt turnID and returns it.
func (q *promptQueue) take(turnID string) (queuedPrompt, bool) {
	i := q.find(turnID)
	if i < 0 {
		return queuedPrompt{}, false
	}
	it := q.items[i]
	q.items = append(q.items[:i:i], q.items[i+1:]...)
	return it, true
}

func (q *promptQueue) snapshot() []event.QueuedPrompt {
	out := make([]event.QueuedPrompt, 0, len(q.items))
	for _, it := range q.items {
		out = append(out, event.QueuedPrompt{TurnID: it.id, Prompt: it.in.Prompt, Mode: string(it.mode)})
	}
	return out
}

// nextTurnID numbers the session's next turn. Called with s.mu held.
func (s *session) nextTurnID() string {
	s.turns++
	return fmt.Sprintf("%s-t%d", s.info.SessionID, s.turns)
}

// runningID is the running turn's id, "" when none runs. Called with s.mu
// held.
func (s *session) runningID() string {
	if s.running != nil {
		return s.running.id
	}
	return ""
}

// emitQueue reports the queue as it is now. Called with s.mu held, so
// the reports go out in the order of the changes.
func (s *session) emitQueue(turnID string) {
	s.emit(turnID, event.QueueChanged{Items: s.queue.snapshot(), Paused: s.queue.paused && len(s.queue.items) > 0})
}

// unpause lets a paused queue go on after the turn a new prompt starts.
// Called with s.mu held.
func (s *session) unpause(turnID string) {
	if s.queue.paused {
		s.queue.paused = false
		if len(s.queue.items) > 0 {
			s.emitQueue(turnID)
		}
	}
}

// afterTurn decides what follows turn t: the steers it did not take wait
// first in the queue; after a completed turn the queue's first prompt
// starts, after an interrupted or failed one the queue pauses. Called
// with s.mu held and no turn running.
func (s *session) afterTurn(t *turn) {
	q := &s.queue
	changed, wasPaused := len(q.pending) > 0, q.paused
	if changed {
		front := make([]queuedPrompt, 0, len(q.pending)+len(q.items))
		for _, st := range q.pending {
			id := s.nextTurnID()
			front = append(front, queuedPrompt{id: id, in: st.in, wait: st.wait})
			s.noteCarried(id, st.in)
		}
		q.items, q.pending = append(front, q.items...), nil
	}
	if len(q.items) == 0 {
		return
	}
	if t.result.Status != event.StatusCompleted || s.mgr.isClosed() {
		q.paused = true
	}
	if q.paused {
		if changed || !wasPaused {
			s.mgr.log.Info("the queue waits for the user", "session", s.info.SessionID, "after", t.id, "waiting", len(q.items))
			s.emitQueue("")
		}
		return
	}
	if _, err := s.startNext(); err != nil {
		s.mgr.log.Warn("the next queued prompt cannot start; the queue waits", "session", s.info.SessionID, "err", err)
	}
}

// beforeQueued calls Options.BeforeQueued when a waiting prompt (or a
// steer turn t did not take) will start after t: the next turn runs with
// the settings of the config files as they are then. Called from t's
// goroutine, with no lock held, before t stops running.
func (s *session) beforeQueued(t *turn) {
	hook := s.mgr.opts.BeforeQueued
	if hook == nil || t.result.Status != event.StatusCompleted || s.mgr.isClosed() {
		return
	}
	s.mu.Lock()
	next := !s.queue.paused && len(s.queue.items)+len(s.queue.pending) > 0
	s.mu.Unlock()
	if next {
		hook()
	}
}

// startNext starts the queue's first prompt; when it cannot start, it
// stays first and the queue pauses. Called with s.mu held, no turn
// running and a queue that is not empty.
func (s *session) startNext() (string, error) {
	next := s.queue.items[0]
	s.queue.items = s.queue.items[1:]
	s.emitQueue("")
	if _, err := s.launchQueued(next); err != nil {
		s.queue.items = append([]queuedPrompt{next}, s.queue.items...)
		s.queue.paused = true
		s.emitQueue("")
		return "", err
	}
	return next.id, nil
}

// restoreQueue brings back a recorded queue, paused: nothing starts
// before the user says so. Turn ids go on after the queued ones. Called
// before the session can be reached.
func (s *session) restoreQueue(items []event.QueuedPrompt, carried map[string]TurnInput) {
	for _, it := range items {
		if it.TurnID == "" || strings.TrimSpace(it.Prompt) == "" || len(s.queue.items) >= MaxQueued {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(it.TurnID, s.info.SessionID+"-t")); err == nil && n > s.turns {
			s.turns = n
		}
		mode, err := ParseMode(it.Mode)
		if it.Mode == "" || err != nil {
			mode = ""
		}
		in := carried[it.TurnID]
		in.Prompt = it.Prompt
		s.queue.items = append(s.queue.items, queuedPrompt{id: it.TurnID, in: in, mode: mode})
	}
	s.queue.paused = len(s.queue.items) > 0
}

// isClosed reports whether the manager is shutting down.
func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// noteCarried has the record keep the editor context and images of the
// prompt queued as id. Called with s.mu held.
func (s *session) noteCarried(id string, in TurnInput) {
	if len(in.Context) > 0 || len(in.Images) > 0 {
		s.obs.Queued(id, TurnInput{Context: in.Context, Images: in.Images})
	}
}

// carried is the editor context and images of the waiting prompts that
// carry any, by turn id. Called with the session's mu held.
func (q *promptQueue) carried() map[string]TurnInput {
	var m map[string]TurnInput
	for _, it := range q.items {
		if len(it.in.Context) > 0 || len(it.in.Images) > 0 {
			if m == nil {
				m = map[string]TurnInput{}
			}
			m[it.id] = TurnInput{Context: it.in.Context, Images: it.in.Images}
		}
	}
	return m
}

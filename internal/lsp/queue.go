package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// The methods of the queue and of steering (protocol section 10, "while
// it works").
const (
	methodSteer        = "agent/steer"
	methodUpdateQueued = "agent/updateQueued"
	methodRemoveQueued = "agent/removeQueued"
	methodResumeQueue  = "agent/resumeQueue"
)

// Queuer is the part of the agent that keeps the prompts sent while a
// turn runs, and the messages sent into the running turn. agent.Manager
// implements it.
type Queuer interface {
	// Submit queues a prompt behind the running turn, or starts it when
	// none runs.
	Submit(sessionID string, in agent.TurnInput) (agent.Submitted, error)
	UpdateQueued(sessionID, turnID, prompt string) error
	RemoveQueued(sessionID, turnID string) error
	// ClearQueue empties the queue (Agent: Stop).
	ClearQueue(sessionID string) error
	// ResumeQueue lets a paused queue go on; it returns the turn it
	// started, "" when none.
	ResumeQueue(sessionID string) (string, error)
	// QueueOf returns the session's waiting prompts and whether they
	// wait for the user (after a turn that did not complete).
	QueueOf(sessionID string) ([]event.QueuedPrompt, bool, error)
	// Steer adds a message (or the queued prompt queuedTurnID) to the
	// running turn, or starts a turn when none runs.
	Steer(sessionID string, in agent.TurnInput, queuedTurnID string) (agent.SteerResult, error)
}

type queueParams struct {
	SessionID string         `json:"sessionId"`
	TurnID    string         `json:"turnId"`
	Prompt    *string        `json:"prompt"`
	Context   []contextParam `json:"context"`
	Images    []string       `json:"images"`
}

type resumeQueueResult struct {
	// TurnID is the turn the queue's first prompt started, "" when a
	// turn still runs or nothing waits.
	TurnID string `json:"turnId"`
}

// startOrQueue starts a turn of in, or queues it while one runs. It asks
// for a turn first, as a prompt with no turn running always did.
func startOrQueue(a Agent, sessionID string, in agent.TurnInput) (agent.Submitted, error) {
	turn, err := a.StartTurn(sessionID, in)
	if err == nil {
		return agent.Submitted{TurnID: turn.ID(), Turn: turn}, nil
	}
	if !errors.Is(err, agent.ErrTurnRunning) {
		return agent.Submitted{}, err
	}
	return a.Submit(sessionID, in)
}

// queued answers a prompt that waits in the queue; a client without
// agent/event is told so before the answer (see beginTurn).
func (s *server) queued(ctx context.Context, sessionID string, sub agent.Submitted, prompt string) (*startTurnResult, error) {
	if !s.capabilities().AgentEvents {
		s.out.push(outItem{notice: &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo,
			Message: fmt.Sprintf("Agent: queued “%s” (%d waiting); it runs when the current turn ends", textcut.FirstLine(prompt, 100), sub.Waiting)}})
		if err := s.out.drained(ctx); err != nil {
			return nil, err
		}
	}
	return &startTurnResult{SessionID: sessionID, TurnID: sub.TurnID, Queued: true}, nil
}

// resumeQueue lets the session's paused queue go on.
func (s *server) resumeQueue(a Agent, sessionID string) (*resumeQueueResult, error) {
	turnID, err := a.ResumeQueue(sessionID)
	if err != nil {
		return nil, queueError(err)
	}
	if turnID != "" {
		s.convs.started(sessionID, turnID)
	}
	return &resumeQueueResult{TurnID: turnID}, nil
}

// pausedQueue is the number of prompts that wait for the user to resume
// the current conversation's queue (Agent: Resume queue), 0 when none.
func (s *server) pausedQueue() int {
	id := s.convs.Current()
	a, err := s.theAgent()
	if id == "" || err != nil {
		return 0
	}
	items, paused, err := a.QueueOf(id)
	if err != nil || !paused {
		return 0
	}
	return len(items)
}

// queueMethod handles agent/steer, agent/updateQueued, agent/removeQueued
// and agent/resumeQueue.
func (s *server) queueMethod(ctx context.Context, method string, params []byte) (any, error) {
	var p queueParams
	if err := decodeParams(method, params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: sessionId is required", method)
	}
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	switch method {
	case methodSteer:
		return s.steer(ctx, a, p)
	case methodResumeQueue:
		return s.resumeQueue(a, p.SessionID)
	}
	if p.TurnID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: turnId is required", method)
	}
	if method == methodRemoveQueued {
		err = a.RemoveQueued(p.SessionID, p.TurnID)
	} else {
		if p.Prompt == nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: prompt is required", method)
		}
		err = a.UpdateQueued(p.SessionID, p.TurnID, *p.Prompt)
	}
	if err != nil {
		return nil, queueError(err)
	}
	return struct{}{}, nil
}

// steer sends a message, or a queued prompt, into the running turn.
func (s *server) steer(ctx context.Context, a Agent, p queueParams) (any, error) {
	if (p.Prompt == nil) == (p.TurnID == "") {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: give either prompt or the turnId of a queued prompt", methodSteer)
	}
	var in agent.TurnInput
	if p.Prompt != nil {
		if strings.TrimSpace(*p.Prompt) == "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: prompt must not be empty", methodSteer)
		}
		in.Prompt = *p.Prompt
		var err error
		if in.Context, err = s.resolveContext(methodSteer, p.Context); err != nil {
			return nil, err
		}
		for i, img := range p.Images {
			u, err := imageDataURL(img)
			if err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: images[%d]: %v", methodSteer, i, err)
			}
			in.Images = append(in.Images, u)
		}
	}
	res, err := a.Steer(p.SessionID, in, p.TurnID)
	if err != nil {
		return nil, queueError(err)
	}
	if res.Started {
		s.convs.started(p.SessionID, res.TurnID)
	}
	s.convs.setCurrent(p.SessionID)
	return res, nil
}

// queueError maps the queue's errors: a prompt or turn id the queue
// cannot take is a bad parameter, a full queue a request that cannot be
// carried out now.
func queueError(err error) error {
	switch {
	case errors.Is(err, agent.ErrNotQueued), errors.Is(err, agent.ErrPromptTooLong), errors.Is(err, agent.ErrEmptyPrompt):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return agentError(err)
}

// clearQueues empties the queues of the sessions Agent: Stop stops, so
// nothing starts after it.
func (s *server) clearQueues(a Agent, sessions []string) {
	for _, id := range sessions {
		if err := a.ClearQueue(id); err != nil && !errors.Is(err, agent.ErrUnknownSession) {
			s.log.Warn("the queue was not emptied", "session", id, "err", err)
		}
	}
}

// queueEvent shows the queue's events to a client without agent/event:
// a steer in its log, and a message when the queue starts to wait for the
// user. It reports whether ev was one of them.
func (p *plain) queueEvent(ctx context.Context, ev event.Event) bool {
	switch e := ev.Payload.(type) {
	case event.TurnStarted:
		// A queued turn starts with no request to announce it (see
		// beginTurn); a client with progress sees it there.
		key := turnKey{ev.SessionID, ev.TurnID}
		if _, ok := p.queued[key]; ok && !p.s.capabilities().WorkDoneProgress {
			p.s.showMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Agent: working on the queued “%s” (code action “Agent: Stop” interrupts it)", textcut.FirstLine(e.Prompt, 100)))
		}
		delete(p.queued, key)
		return false
	case event.Steered:
		p.log(ctx, "You, while it worked: "+textcut.FirstLine(e.Text, 200))
		return true
	case event.QueueChanged:
		if p.paused == nil {
			p.paused = make(map[string]bool)
		}
		was := p.paused[ev.SessionID]
		p.paused[ev.SessionID] = e.Paused
		p.noteQueued(ev.SessionID, e.Items)
		if e.Paused && !was {
			p.s.showMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf(
				"Agent: %d queued prompt(s) wait, since the last turn did not complete: the next prompt you send runs first, then they follow (the code action “Agent: Resume queue” runs them now)", len(e.Items)))
		}
		return true
	}
	return false
}

// noteQueued remembers the session's queued turns: those listed now
// (true), and, for one more change, those the last list had and this one
// lacks (false), which may be starting: a queued turn's turnStarted
// follows the queueChanged that drops it.
func (p *plain) noteQueued(session string, items []event.QueuedPrompt) {
	if p.queued == nil {
		p.queued = make(map[turnKey]bool)
	}
	listed := make(map[string]bool, len(items))
	for _, it := range items {
		listed[it.TurnID] = true
	}
	for k, now := range p.queued {
		switch {
		case k.session != session || listed[k.turn]:
		case now:
			p.queued[k] = false
		default:
			delete(p.queued, k)
		}
	}
	for id := range listed {
		p.queued[turnKey{session, id}] = true
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/elicit"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// An MCP server may ask the user a question during a call
// (elicitation/create, form mode). agent-ls advertises form elicitation
// only, and routes each question to the session whose call to that
// server is under way: the calls in flight are kept per server
// (inflight), each with the approver of its session. A question with no
// call under way, or with calls of several sessions under way, is
// declined and logged: it cannot be told whose it is. While the user
// answers, the call's tool timeout stands still.

// Elicitor is the part of a session's tools.Approver that puts a
// server's question to its user (the agent's turn approver implements
// it). The result is Accept with content valid for req.Schema, Decline
// or Cancel; ctx ends when the call ends (the turn is interrupted), and
// the question is then cancelled.
type Elicitor interface {
	Elicit(ctx context.Context, req elicit.Request) (elicit.Result, error)
}

// formOnly is the elicitation capability agent-ls advertises.
var formOnly = &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}}

// elicitKey carries a server's elicitation handler into its handshake's
// context, which connectClient reads.
type elicitKey struct{}

type elicitHandler = func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)

// withElicitation is ctx carrying the server's elicitation handler.
func withElicitation(ctx context.Context, h elicitHandler) context.Context {
	return context.WithValue(ctx, elicitKey{}, h)
}

// elicitation is the handler ctx carries (nil: none) and the capability
// to advertise with it.
func elicitation(ctx context.Context) (elicitHandler, *sdk.ElicitationCapabilities) {
	h, _ := ctx.Value(elicitKey{}).(elicitHandler)
	if h == nil {
		return nil, nil
	}
	return h, formOnly
}

// callKey marks a call's context with the session it runs for.
type callKey struct{}

// callOwner is the session a call runs for: its tools.Env (one per
// turn), the approver that asks its user, and the call.
type callOwner struct {
	env    *tools.Env
	ask    Elicitor
	callID string

	mu sync.Mutex
	// notes say why questions were answered without asking the user,
	// for the model (elicit.Result.Note).
	notes []string
}

// note records why a question was answered without asking.
func (o *callOwner) note(n string) {
	if n == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !slices.Contains(o.notes, n) {
		o.notes = append(o.notes, n)
	}
}

// withNotes is out with the notes of the call ctx marks, if any, after
// the server's result.
func withNotes(ctx context.Context, out tools.Output) tools.Output {
	o, _ := ctx.Value(callKey{}).(*callOwner)
	if o == nil {
		return out
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, n := range o.notes {
		out.Text = strings.TrimRight(out.Text, "\n") + "\n\n[agent-ls: " + n + "]"
	}
	return out
}

// forSession is ctx marked as a call of env's session, when env's
// approver can ask questions.
func forSession(ctx context.Context, env *tools.Env, callID string) context.Context {
	if env == nil {
		return ctx
	}
	ask, ok := env.Approver.(Elicitor)
	if !ok {
		return ctx
	}
	return context.WithValue(ctx, callKey{}, &callOwner{env: env, ask: ask, callID: callID})
}

// inflightCall is a call under way to a server.
type inflightCall struct {
	owner *callOwner
	ctx   context.Context // the call's
	timer *pausableTimer
}

// inflight are a server's calls under way that belong to a session.
type inflight struct {
	mu    sync.Mutex
	calls []*inflightCall
}

// add records a call under way, if ctx says whose it is; the function
// returned forgets it.
func (in *inflight) add(ctx context.Context, timer *pausableTimer) func() {
	owner, _ := ctx.Value(callKey{}).(*callOwner)
	if owner == nil {
		return func() {}
	}
	c := &inflightCall{owner: owner, ctx: ctx, timer: timer}
	in.mu.Lock()
	in.calls = append(in.calls, c)
	in.mu.Unlock()
	return func() {
		in.mu.Lock()
		defer in.mu.Unlock()
		for i, x := range in.calls {
			if x == c {
				in.calls = append(in.calls[:i], in.calls[i+1:]...)
				return
			}
		}
	}
}

// owner is the call a question belongs to: the first call under way
// when all belong to one session (one turn), else nil and why.
func (in *inflight) owner() (*inflightCall, string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.calls) == 0 {
		return nil, "no call to the server is under way"
	}
	for _, c := range in.calls[1:] {
		if c.owner.env != in.calls[0].owner.env {
			return nil, "calls of several sessions to the server are under way"
		}
	}
	return in.calls[0], ""
}

// elicit answers the server's elicitation/create: the question goes to
// the user of the session whose call is under way; anything that keeps
// it from being asked declines it. The SDK has checked the schema
// already and checks the answer again before it goes.
func (s *server) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	decline := &sdk.ElicitResult{Action: elicit.Decline}
	p := req.Params
	if p.Mode != "" && p.Mode != "form" {
		s.log.Warn("MCP server: elicitation declined: agent-ls asks only forms", "mode", p.Mode)
		return decline, nil
	}
	call, why := s.calls.owner()
	if call == nil {
		s.log.Warn("MCP server: elicitation declined: it cannot be told whose it is", "why", why)
		return decline, nil
	}
	raw, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return decline, nil
	}
	schema, err := elicit.Parse(raw)
	if err != nil {
		s.log.Warn("MCP server: elicitation declined: its schema is not one agent-ls asks", "err", err)
		return decline, nil
	}
	// The question ends with the call (an interrupt) or when the server
	// withdraws it.
	ask, stop := context.WithCancel(call.ctx)
	defer stop()
	defer context.AfterFunc(ctx, stop)()
	defer call.timer.pause()()
	res, err := call.owner.ask.Elicit(ask, elicit.Request{CallID: call.owner.callID, Server: s.cfg.Name, Message: p.Message, Schema: schema})
	switch {
	case ask.Err() != nil:
		return &sdk.ElicitResult{Action: elicit.Cancel}, nil
	case err != nil:
		s.log.Warn("MCP server: elicitation declined: asking failed", "err", err)
		return decline, nil
	}
	call.owner.note(res.Note)
	switch res.Action {
	case elicit.Accept:
		content, err := schema.Check(res.Content)
		if err != nil {
			s.log.Warn("MCP server: elicitation declined: the answer does not fit the form", "err", err)
			return decline, nil
		}
		return &sdk.ElicitResult{Action: elicit.Accept, Content: content}, nil
	case elicit.Decline, elicit.Cancel:
		return &sdk.ElicitResult{Action: res.Action}, nil
	}
	s.log.Warn("MCP server: elicitation declined: unknown answer", "action", res.Action)
	return decline, nil
}

// pausableTimer ends a call's context after its timeout, not counting
// the time it stands still (while the user answers a question).
type pausableTimer struct {
	mu      sync.Mutex
	t       *time.Timer
	left    time.Duration
	started time.Time
	paused  int
}

// errCallTimeout is the cause of a call's context that timed out.
var errCallTimeout = errors.New("the call's timeout passed")

// withPausableTimeout is ctx ended after d (with errCallTimeout as the
// cause) unless paused; stop releases it.
func withPausableTimeout(ctx context.Context, d time.Duration) (context.Context, *pausableTimer, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	pt := &pausableTimer{left: d, started: time.Now()}
	pt.t = time.AfterFunc(d, func() { cancel(errCallTimeout) })
	return ctx, pt, func() {
		pt.mu.Lock()
		pt.t.Stop()
		pt.mu.Unlock()
		cancel(nil)
	}
}

// pause stops the clock until the function returned is called.
func (pt *pausableTimer) pause() func() {
	pt.mu.Lock()
	if pt.paused == 0 && pt.t.Stop() {
		pt.left -= time.Since(pt.started)
	}
	pt.paused++
	pt.mu.Unlock()
	return func() {
		pt.mu.Lock()
		defer pt.mu.Unlock()
		pt.paused--
		if pt.paused == 0 {
			pt.started = time.Now()
			pt.t.Reset(max(pt.left, 0))
		}
	}
}

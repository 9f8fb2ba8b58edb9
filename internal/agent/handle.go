package agent

import "github.com/agent-ls/agent-ls/internal/event"

// Turn is a running turn as its starter holds it: its id, and a way to
// wait for its end. A frontend that answers when the turn ends (exec, an
// ACP session/prompt) waits on Done instead of watching events.
type Turn struct {
	id     string
	done   <-chan struct{}
	result *TurnResult // written before done closes
}

// NewTurn makes a turn handle from its parts, for stand-ins of the agent
// in frontends' tests; result must be set before done is closed.
func NewTurn(id string, done <-chan struct{}, result *TurnResult) *Turn {
	return &Turn{id: id, done: done, result: result}
}

// TurnResult is how a turn ended: its turnCompleted event's status
// (event.StatusCompleted, StatusInterrupted or StatusFailed), error and
// last message.
type TurnResult struct {
	Status      event.TurnStatus
	Error       string
	LastMessage string
	// RequestLimit: the turn failed because it reached its limit of
	// model requests.
	RequestLimit bool
	// Refused: the model's last answer was a refusal to go on.
	Refused bool
}

// ID is the turn's id.
func (h *Turn) ID() string { return h.id }

// Done is closed when the turn has ended and its turnCompleted event has
// been delivered.
func (h *Turn) Done() <-chan struct{} { return h.done }

// Result waits for the turn to end and says how it ended.
func (h *Turn) Result() TurnResult {
	<-h.done
	return *h.result
}

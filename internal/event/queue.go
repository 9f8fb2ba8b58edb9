package event

// The session-level events of the prompt queue and of steering (protocol
// section 10, "while it works").
const (
	TypeQueueChanged Type = "queueChanged"
	TypeSteered      Type = "steered"
)

// QueuedPrompt is one prompt waiting in a session's queue: the turn id it
// will run under and its text.
type QueuedPrompt struct {
	TurnID string `json:"turnId"`
	Prompt string `json:"prompt"`
	// Mode is the mode the session switches to when the prompt starts
	// (agent/approvePlan queued behind a running turn: "default"); empty
	// for a prompt that leaves the mode as it is.
	Mode string `json:"mode,omitempty"`
}

// QueueChanged is the session's whole queue after a change, first to run
// first. Paused: the queue waits for the user (agent/resumeQueue or a new
// prompt) because the turn before it was interrupted or failed, or
// agent-ls restarted. Its turnId is the running turn's, or "".
type QueueChanged struct {
	Items  []QueuedPrompt `json:"items"`
	Paused bool           `json:"paused,omitempty"`
}

// Steered is a message of the user added to the running turn: it entered
// the history before the model's next request. QueuedTurnID names the
// queued prompt it came from ("Send now"), if any.
type Steered struct {
	Text         string `json:"text"`
	QueuedTurnID string `json:"queuedTurnId,omitempty"`
}

func (QueueChanged) EventType() Type { return TypeQueueChanged }
func (Steered) EventType() Type      { return TypeSteered }

func init() {
	payloads[TypeQueueChanged] = func() Payload { return &QueueChanged{} }
	payloads[TypeSteered] = func() Payload { return &Steered{} }
}

package event

// TypeModeChanged is the session-level event of a mode switch (protocol
// section 10, "while it works": plan mode).
const TypeModeChanged Type = "modeChanged"

// ModeChanged says the session's mode is now Mode ("default" or "plan"):
// agent/setMode, agent/approvePlan or a front end's plan switch changed
// it. A turn that runs keeps the mode it started with; the session's next
// turn runs in Mode. Its turnId is the running turn's, or "".
type ModeChanged struct {
	Mode string `json:"mode"`
}

func (ModeChanged) EventType() Type { return TypeModeChanged }

func init() {
	payloads[TypeModeChanged] = func() Payload { return &ModeChanged{} }
}

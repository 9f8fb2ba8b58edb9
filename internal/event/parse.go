package event

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// payloads makes an empty payload of each type, for Parse.
var payloads = map[Type]func() Payload{
	TypeTurnStarted:     func() Payload { return &TurnStarted{} },
	TypeMessageDelta:    func() Payload { return &MessageDelta{} },
	TypeMessage:         func() Payload { return &Message{} },
	TypeReasoningDelta:  func() Payload { return &ReasoningDelta{} },
	TypeReasoning:       func() Payload { return &Reasoning{} },
	TypeToolCall:        func() Payload { return &ToolCall{} },
	TypeExecOutput:      func() Payload { return &ExecOutput{} },
	TypeToolProgress:    func() Payload { return &ToolProgress{} },
	TypeToolResult:      func() Payload { return &ToolResult{} },
	TypeFileChange:      func() Payload { return &FileChange{} },
	TypePlan:            func() Payload { return &Plan{} },
	TypeApproval:        func() Payload { return &Approval{} },
	TypeUsage:           func() Payload { return &Usage{} },
	TypeRetry:           func() Payload { return &Retry{} },
	TypeCompacted:       func() Payload { return &Compacted{} },
	TypeWebSearch:       func() Payload { return &WebSearch{} },
	TypeTurnCompleted:   func() Payload { return &TurnCompleted{} },
	TypeTerminalStarted: func() Payload { return &TerminalStarted{} },
	TypeTerminalOutput:  func() Payload { return &TerminalOutput{} },
	TypeTerminalExited:  func() Payload { return &TerminalExited{} },
	TypeNetworkAccess:   func() Payload { return &NetworkAccess{} },
}

// Types returns every event type.
func Types() []Type {
	out := make([]Type, 0, len(payloads))
	for t := range payloads {
		out = append(out, t)
	}
	return out
}

// Parse reads an event as MarshalJSON writes it (one flat object), for
// those who keep events and read them back (a session's record).
func Parse(data []byte) (Event, error) {
	var h struct {
		SessionID string `json:"sessionId"`
		TurnID    string `json:"turnId"`
		Seq       int64  `json:"seq"`
		Type      Type   `json:"type"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return Event{}, fmt.Errorf("event: %w", err)
	}
	return ParsePayload(h.Type, data, Event{SessionID: h.SessionID, TurnID: h.TurnID, Seq: h.Seq})
}

// ParsePayload reads the payload of an event of type typ from data (the
// flat object) into ev, whose header the caller has read already.
func ParsePayload(typ Type, data []byte, ev Event) (Event, error) {
	mk, ok := payloads[typ]
	if !ok {
		return Event{}, fmt.Errorf("event: unknown type %q", typ)
	}
	p := mk()
	if err := json.Unmarshal(data, p); err != nil {
		return Event{}, fmt.Errorf("%s event: %w", typ, err)
	}
	// The payload types are values everywhere else.
	ev.Payload = reflect.ValueOf(p).Elem().Interface().(Payload)
	return ev, nil
}

package event

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/agent-ls/agent-ls/internal/jsonstr"
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
// those who keep events and read them back (a session's record). The
// header MarshalJSON writes first is read off the front, so the object is
// decoded once, into its payload; a header in any other form is decoded
// as JSON.
func Parse(data []byte) (Event, error) {
	if h, ok := plainHeader(data); ok {
		return ParsePayload(h.Type, data, Event{SessionID: h.SessionID, TurnID: h.TurnID, Seq: h.Seq})
	}
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		return Event{}, fmt.Errorf("event: %w", err)
	}
	return ParsePayload(h.Type, data, Event{SessionID: h.SessionID, TurnID: h.TurnID, Seq: h.Seq})
}

// header is the front of an event's object, as MarshalJSON writes it.
type header struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	Seq       int64  `json:"seq"`
	Type      Type   `json:"type"`
}

// plainHeader reads the header MarshalJSON writes at the front of data:
// `{"sessionId":"…","turnId":"…","seq":N,"type":"…"` followed by ',' or
// '}', its strings as jsonstr.Decode reads them. Anything else is not
// read (ok false); the payload's decoding checks the rest of the object,
// and the whole of it is JSON or an error.
func plainHeader(data []byte) (h header, ok bool) {
	rest, ok := cutPrefix(data, `{"sessionId":`)
	h.SessionID, rest, ok = stringAt(rest, ok)
	rest, ok = cutPrefixIf(rest, `,"turnId":`, ok)
	h.TurnID, rest, ok = stringAt(rest, ok)
	rest, ok = cutPrefixIf(rest, `,"seq":`, ok)
	if !ok {
		return header{}, false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n > 18 || n > 1 && rest[0] == '0' {
		return header{}, false
	}
	seq, err := strconv.ParseInt(string(rest[:n]), 10, 64)
	if err != nil {
		return header{}, false
	}
	h.Seq = seq
	rest, ok = cutPrefixIf(rest[n:], `,"type":`, true)
	var typ string
	typ, rest, ok = stringAt(rest, ok)
	h.Type = Type(typ)
	if !ok || len(rest) == 0 || rest[0] != ',' && rest[0] != '}' {
		return header{}, false
	}
	return h, true
}

func cutPrefix(b []byte, prefix string) ([]byte, bool) {
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return b, false
	}
	return b[len(prefix):], true
}

func cutPrefixIf(b []byte, prefix string, ok bool) ([]byte, bool) {
	if !ok {
		return b, false
	}
	return cutPrefix(b, prefix)
}

// stringAt reads the JSON string at the front of b, as jsonstr.Decode
// reads it.
func stringAt(b []byte, ok bool) (string, []byte, bool) {
	if !ok || len(b) == 0 || b[0] != '"' {
		return "", b, false
	}
	end, ok := jsonstr.End(b, 1)
	if !ok {
		return "", b, false
	}
	s, ok := jsonstr.Decode(b[1:end])
	return s, b[end+1:], ok
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

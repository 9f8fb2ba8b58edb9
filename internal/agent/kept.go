package agent

import (
	"encoding/json"
	"time"
)

// SessionSummary is a kept session as the front ends list it
// (agent/listSessions, ACP's session/list) and the session records
// describe it.
type SessionSummary struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	// Title is the session's first prompt, shortened.
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	Turns     int       `json:"turns"`
}

// ResumedSession is a kept session brought back, as both front ends
// answer it: its settings and the events that draw its conversation,
// each the agent/event object as it was sent (valid JSON objects, in
// order, sent on as they are).
type ResumedSession struct {
	Info  SessionInfo
	Items []json.RawMessage
	// Array, when set, returns head, the Items joined by commas and
	// tail as one slice, built where the items were read when it can
	// (a long session's are megabytes): an answer that carries them.
	Array func(head, tail []byte) []byte
}

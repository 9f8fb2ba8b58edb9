package event

// TypeRewound is the session-level event of a rewind (protocol section
// 10, "rewind").
const TypeRewound Type = "rewound"

// Rewound says turns left the conversation: the model no longer sees
// them, and their file changes were taken back as far as they could be.
// A record keeps it, so a client that redraws the session shows them as
// rewound (or, like an ACP client's session/load, leaves them out). Its
// turnId is "".
type Rewound struct {
	TurnIDs []string `json:"turnIds"`
}

func (Rewound) EventType() Type { return TypeRewound }

func init() {
	payloads[TypeRewound] = func() Payload { return &Rewound{} }
}

package event

// TypeNetworkAccess is the event of one connection of a sandboxed
// command through agent-ls's network proxy (network = "ask").
const TypeNetworkAccess Type = "networkAccess"

// NetworkAccess: a command's connection through the proxy closed.
// Decision is "allowed" or "denied"; Bytes what it moved both ways;
// CallID the tool call whose command connected, or TerminalID its
// terminal. It may come between turns (turnId "").
type NetworkAccess struct {
	Host       string `json:"host"`
	Port       int    `json:"port"`
	Decision   string `json:"decision"`
	Bytes      int64  `json:"bytes"`
	CallID     string `json:"callId,omitempty"`
	TerminalID string `json:"terminalId,omitempty"`
}

func (NetworkAccess) EventType() Type { return TypeNetworkAccess }

package event

// The events of the interactive command sessions the model starts with
// exec_command (protocol section 3, "terminals"). They may come between
// turns, with turnId "": a session lives across the turns of its agent
// session.
const (
	TypeTerminalStarted Type = "terminalStarted"
	TypeTerminalOutput  Type = "terminalOutput"
	TypeTerminalExited  Type = "terminalExited"
)

// TerminalStarted: exec_command started a command that may run on after
// its call returns. TerminalID is the decimal session_id the model uses
// with write_stdin; CallID the exec_command call that started it.
type TerminalStarted struct {
	TerminalID string   `json:"terminalId"`
	CallID     string   `json:"callId"`
	Command    []string `json:"command"`
	Cwd        string   `json:"cwd"`
	TTY        bool     `json:"tty"`
}

// TerminalOutput is output of a terminal, coalesced and bounded like
// execOutput: valid UTF-8, with a character split across reads held back
// until it is whole and invalid bytes replaced by U+FFFD.
type TerminalOutput struct {
	TerminalID string `json:"terminalId"`
	Data       string `json:"data"`
}

// TerminalExited: the terminal's command ended (by itself, or killed when
// its session closed); ExitCode is 128+N for a command a signal N ended.
type TerminalExited struct {
	TerminalID string `json:"terminalId"`
	ExitCode   int    `json:"exitCode"`
}

func (TerminalStarted) EventType() Type { return TypeTerminalStarted }
func (TerminalOutput) EventType() Type  { return TypeTerminalOutput }
func (TerminalExited) EventType() Type  { return TypeTerminalExited }

package acp

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// The slash commands over the session's command sessions (the commands
// exec_command started, which may run on after their turn): /terminals
// lists them, /kill stops them. They run while a turn runs too, and
// leave the conversation as it is: the model learns of a stopped session
// at its next request.
var terminalCommands = []sdk.AvailableCommand{
	{Name: "terminals", Description: "List the commands the agent started that may run on (command sessions): id, command, running or exit code"},
	{Name: "kill", Description: "Stop a command session and all it started: /kill N stops session N, /kill or /kill all stops every one",
		Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "N | all"}}},
}

// maxShownCommand bounds a command line in /terminals.
const maxShownCommand = 200

// isTerminalCommand: name is /terminals or /kill.
func isTerminalCommand(name string) bool { return name == "terminals" || name == "kill" }

// terminalCommand runs /terminals or /kill and returns what the user is
// told.
func terminalCommand(a Agent, agentID, name, args string) (string, error) {
	if name == "terminals" {
		list, err := a.ListTerminals(agentID)
		if err != nil {
			return "", err
		}
		return terminalList(list), nil
	}
	switch args {
	case "", "all":
		ids, err := a.StopTerminals(agentID)
		if err != nil {
			return "", err
		}
		if len(ids) == 0 {
			return "No command session was running.", nil
		}
		if len(ids) == 1 {
			return "Stopped " + sessionsWord(ids) + ", with all it started.", nil
		}
		return "Stopped " + sessionsWord(ids) + ", with all they started.", nil
	}
	id, err := strconv.Atoi(strings.TrimSpace(args))
	if err != nil {
		return "Usage: /kill N stops command session N (/terminals lists them); /kill or /kill all stops every one.", nil
	}
	err = a.KillTerminal(agentID, id)
	switch {
	case errors.Is(err, agent.ErrUnknownTerminal):
		return fmt.Sprintf("There is no command session %d: /terminals lists them.", id), nil
	case errors.Is(err, agent.ErrTerminalEnded):
		return textcut.VisibleLine(err.Error()) + ".", nil
	case err != nil:
		return "", err
	}
	return fmt.Sprintf("Stopped command session %d, with all it started.", id), nil
}

// terminalList renders the command sessions, one a line.
func terminalList(list []agent.TerminalInfo) string {
	if len(list) == 0 {
		return "No command sessions: the agent has started none that run on."
	}
	var b strings.Builder
	b.WriteString("Command sessions:\n")
	for _, t := range list {
		state := "running"
		if !t.Running {
			state = fmt.Sprintf("exited with code %d", t.ExitCode)
			if t.Killed != "" {
				state += ", stopped " + textcut.VisibleLine(t.Killed)
			}
		}
		fmt.Fprintf(&b, "- %d: %s (%s)\n", t.ID, textcut.VisibleLine(textcut.Cut(shownCommand(t.Command), maxShownCommand)), state)
	}
	b.WriteString("/kill N stops one, /kill all every one.")
	return b.String()
}

// sessionsWord is "command session 1000" or "command sessions 1000, 1001".
func sessionsWord(ids []int) string {
	words := make([]string, len(ids))
	for i, id := range ids {
		words[i] = strconv.Itoa(id)
	}
	if len(ids) == 1 {
		return "command session " + words[0]
	}
	return "command sessions " + strings.Join(words, ", ")
}

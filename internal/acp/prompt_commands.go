package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// The prompt templates of the session's MCP servers are slash commands
// too, named <server>:<prompt>: the client shows them with the others and
// sends /<server>:<prompt> args back as the prompt's text, which the agent
// expands into the turn's input (agent.PromptSource).

// maxCommandDescription bounds a prompt's description as a command's.
const maxCommandDescription = 300

// promptCommands are the slash commands of the session's prompts.
func (s *server) promptCommands(ss *session) []sdk.AvailableCommand {
	a, err := s.theAgent()
	if err != nil {
		return nil
	}
	ss.mu.Lock()
	id := ss.agentID
	ss.mu.Unlock()
	prompts, err := a.Prompts(id)
	if err != nil {
		s.log.Debug("acp: the session's prompts are not listed", "session", id, "err", err)
		return nil
	}
	var out []sdk.AvailableCommand
	for _, p := range prompts {
		c := sdk.AvailableCommand{Name: p.Server + ":" + p.Name, Description: textcut.VisibleLine(textcut.Cut(p.Description, maxCommandDescription))}
		if c.Description == "" {
			c.Description = "The prompt " + p.Name + " of the MCP server " + p.Server
		}
		if hint := argumentsHint(p.Arguments); hint != "" {
			c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
		}
		out = append(out, c)
	}
	return out
}

// argumentsHint is what a client shows where the arguments go: the
// required ones as name=…, the others in brackets; a single required
// argument is typed alone.
func argumentsHint(args []agent.PromptArgument) string {
	var parts []string
	required := 0
	for _, a := range args {
		if a.Required {
			required++
		}
	}
	for _, a := range args {
		switch {
		case a.Required && required == 1:
			parts = append(parts, "<"+a.Name+">")
		case a.Required:
			parts = append(parts, a.Name+"=…")
		default:
			parts = append(parts, "["+a.Name+"=…]")
		}
	}
	return textcut.VisibleLine(strings.Join(parts, " "))
}

// promptsChanged sends the slash commands again to every session that
// has had its first ones, where they changed (Config.PromptsChanged).
func (s *server) promptsChanged() {
	for _, ss := range s.openSessions() {
		ss.mu.Lock()
		sent := ss.commands
		ss.mu.Unlock()
		if sent == nil {
			// Its first commands are still to follow session/new's
			// answer, and will be the new ones.
			continue
		}
		s.updateCommands(ss, false)
	}
}

func sameCommand(a, b sdk.AvailableCommand) bool {
	hint := func(c sdk.AvailableCommand) string {
		if c.Input == nil || c.Input.Unstructured == nil {
			return ""
		}
		return c.Input.Unstructured.Hint
	}
	return a.Name == b.Name && a.Description == b.Description && hint(a) == hint(b)
}

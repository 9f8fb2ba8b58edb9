package acp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// The slash commands agent-ls offers where ACP has no method: the client
// shows them (available_commands_update) and sends them back as the
// prompt's text.
var commands = []sdk.AvailableCommand{
	{Name: "undo", Description: "Undo the file changes of the last turn that made any"},
	{Name: "rewind", Description: "Take the conversation and the files back to before the last turn, or turn N (/rewind N)",
		Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "turn number (default: the last turn)"}}},
	{Name: "new", Description: "Start a new conversation in this session (the history so far is kept in the old one)"},
}

// compactCommand summarises the history, when the agent can.
var compactCommand = sdk.AvailableCommand{Name: "compact", Description: "Summarise the conversation so far, to free the model's context"}

// commandList is what the server offers.
func (s *server) commandList() []sdk.AvailableCommand {
	list := append([]sdk.AvailableCommand(nil), commands...)
	list = append(list, approveCommand, steerCommand)
	if s.opts.Compact {
		list = append(list, compactCommand)
	}
	return append(list, terminalCommands...)
}

// sendCommands tells the client the session's slash commands: agent-ls's
// own and the prompts of its MCP servers (prompt_commands.go).
func (s *server) sendCommands(ss *session) { s.updateCommands(ss, true) }

// updateCommands sends the session's slash commands, or, unless always,
// only when they differ from those last sent.
func (s *server) updateCommands(ss *session, always bool) {
	s.cmdMu.Lock()
	defer s.cmdMu.Unlock()
	list := append(s.commandList(), s.promptCommands(ss)...)
	ss.mu.Lock()
	send := always || !slices.EqualFunc(ss.commands, list, sameCommand)
	if send {
		ss.commands = list
	}
	ss.mu.Unlock()
	if send {
		s.push(ss, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: list}})
	}
}

// slashCommand recognises a prompt that is one of list.
func slashCommand(in agent.TurnInput, list []sdk.AvailableCommand) (name, args string, ok bool) {
	t := strings.TrimSpace(in.Prompt)
	if !strings.HasPrefix(t, "/") || len(in.Context) > 0 || len(in.Images) > 0 {
		return "", "", false
	}
	name, args, _ = strings.Cut(t[1:], " ")
	for _, c := range list {
		if c.Name == name {
			return name, strings.TrimSpace(args), true
		}
	}
	return "", "", false
}

// runCommand runs a slash command and answers like a turn, its outcome
// told as the agent's message.
func (s *server) runCommand(ctx context.Context, ss *session, name, args string) (sdk.PromptResponse, error) {
	a, err := s.theAgent()
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	if name == "compact" {
		// A turn of its own: cancellable, its summary told by the
		// agent's compacted event.
		return s.runTurn(ss, false, a.Compact)
	}
	if name == "steer" {
		// Into the running turn; it answers when that turn ends.
		return s.steer(ctx, a, ss, args)
	}
	if name == "approve" {
		// A turn, or a prompt that waits behind the running one.
		return s.approve(ctx, a, ss)
	}
	ss.mu.Lock()
	busy, agentID := ss.turn != nil, ss.agentID
	ss.mu.Unlock()
	if isTerminalCommand(name) {
		// While a turn runs too: the user stops a runaway server.
		msg, err := terminalCommand(a, agentID, name, args)
		if err != nil {
			return sdk.PromptResponse{}, requestError(err)
		}
		s.push(ss, sdk.UpdateAgentMessageText(msg))
		s.out.flush(ctx)
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	if busy {
		return sdk.PromptResponse{}, requestError(fmt.Errorf("%w; /%s waits until it ends", agent.ErrTurnRunning, name))
	}
	var msg string
	switch name {
	case "undo":
		msg, err = s.undo(ctx, a, ss)
	case "rewind":
		msg, err = s.rewind(ctx, a, ss, args)
	case "new":
		msg, err = s.newConversation(a, ss)
	}
	if err != nil {
		return sdk.PromptResponse{}, requestError(err)
	}
	s.push(ss, sdk.UpdateAgentMessageText(msg))
	s.out.flush(ctx)
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// undo restores the files of the last turn that changed any.
func (s *server) undo(ctx context.Context, a Agent, ss *session) (string, error) {
	ss.mu.Lock()
	n := len(ss.changing)
	if n == 0 {
		ss.mu.Unlock()
		return "Nothing to undo: no turn of this conversation changed a file.", nil
	}
	turnID, agentID := ss.changing[n-1], ss.agentID
	ss.mu.Unlock()
	paths, err := a.UndoTurn(ctx, agentID, turnID)
	if err != nil {
		return "", fmt.Errorf("undo: %w", err)
	}
	ss.mu.Lock()
	if k := len(ss.changing); k > 0 && ss.changing[k-1] == turnID {
		ss.changing = ss.changing[:k-1]
	}
	cwd := ss.info.Cwd
	ss.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Undid the changes of turn %s:", turnID)
	for _, p := range paths {
		b.WriteString("\n- " + relTo(p, cwd))
	}
	if len(paths) == 0 {
		b.WriteString(" no file needed restoring.")
	}
	return b.String(), nil
}

// newConversation points the ACP session at a fresh agent session with
// the same directory and settings.
func (s *server) newConversation(a Agent, ss *session) (string, error) {
	ss.mu.Lock()
	old := ss.info
	effort := ss.effort
	servers, folders := ss.servers, ss.folders
	ss.mu.Unlock()
	// The new conversation keeps the session's MCP servers and folders.
	info, err := a.NewSession(agent.SessionOptions{Cwd: old.Cwd, Model: old.Model, ApprovalPolicy: old.ApprovalPolicy, SandboxMode: old.SandboxMode, ReasoningEffort: effort, Tools: servers, Mode: old.Mode, Folders: folders})
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	delete(s.byAgent, old.SessionID)
	s.byAgent[info.SessionID] = ss
	s.mu.Unlock()
	ss.mu.Lock()
	ss.agentID, ss.info = info.SessionID, info
	ss.view, ss.changing, ss.titled = newEventView(), nil, false
	ss.mu.Unlock()
	// The old conversation is on disk; the agent lets go of it (and of
	// its record, so that session/load, here or in another agent-ls,
	// brings it back).
	if err := a.Forget(old.SessionID); err != nil && !errors.Is(err, agent.ErrUnknownSession) {
		s.log.Warn("acp: the previous conversation stays in memory", "session", old.SessionID, "err", err)
	}
	return fmt.Sprintf("Started a new conversation. The previous one is kept as session %s (session/load brings it back).", old.SessionID), nil
}

func relTo(p, cwd string) string {
	if cwd != "" && strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

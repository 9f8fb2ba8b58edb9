package acp

import (
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/event"
)

// The command sessions exec_command starts (terminals) are shown on the
// exec_command call that started them, also after that call ended: a
// dev server's output between turns updates that call. agent-ls never
// calls terminal/create: the client would run the command itself,
// outside agent-ls's sandbox.
//
// A client that advertises clientCapabilities._meta.terminal_output
// (Zed, as Codex's adapter codex-acp reads it) gets codex-acp's shapes:
// the call sent again as a tool_call with content {type: "terminal",
// terminalId: <call id>} and _meta.terminal_info {terminal_id, cwd}, then
// tool_call_updates with _meta.terminal_output {terminal_id, data} (only
// the new output) and _meta.terminal_exit {terminal_id, exit_code,
// signal: null}. The call's result leaves the terminal as its content.
// Other clients get the output as the call's text content (its last
// maxShownOutput bytes, as a command's), with a line saying that it runs
// on as command session N, or its exit code.

// termView is one command session as the client sees it.
type termView struct {
	id     string // the terminalId, the session_id the model uses
	callID string // the exec_command call that started it
	// out is the output shown as text; with terminal_output it is the
	// output not sent yet (bounded the same way).
	out       tail
	callEnded bool // the call's result was shown
	exited    bool
	code      int
}

// clientTerminalOutput says whether capabilities advertise live output
// as _meta.terminal_output updates.
func clientTerminalOutput(caps sdk.ClientCapabilities) bool {
	on, _ := caps.Meta["terminal_output"].(bool)
	return on
}

// terminalEvent shows a terminal event or the result of a call that
// started a terminal; false when ev is neither. Called with ss.mu held.
func (s *server) terminalEvent(ss *session, ev event.Event) bool {
	switch p := ev.Payload.(type) {
	case event.TerminalStarted:
		s.terminalStarted(ss, p)
	case event.TerminalOutput:
		s.terminalOutput(ss, p)
	case event.TerminalExited:
		s.terminalExited(ss, p)
	case event.ToolResult:
		return s.terminalResult(ss, p)
	default:
		return false
	}
	return true
}

func (s *server) terminalStarted(ss *session, p event.TerminalStarted) {
	tv := &termView{id: p.TerminalID, callID: p.CallID}
	ss.view.terms[p.TerminalID] = tv
	c := ss.view.calls[p.CallID]
	if c == nil {
		return
	}
	c.term = tv
	c.running = true
	if !s.termMeta.Load() {
		return
	}
	s.push(ss, sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: sdk.ToolCallId(p.CallID),
		Title: c.title, Kind: toolKind(c.kind), Status: sdk.ToolCallStatusInProgress, Locations: c.locs, RawInput: c.raw,
		Content: []sdk.ToolCallContent{sdk.ToolTerminalRef(p.CallID)},
		Meta:    map[string]any{"terminal_info": map[string]any{"terminal_id": p.CallID, "cwd": p.Cwd}}}})
}

// terminalOutput queues the output; the client gets, when it takes it,
// all output since (terminal_output) or the latest text.
func (s *server) terminalOutput(ss *session, p event.TerminalOutput) {
	tv := ss.view.terms[p.TerminalID]
	if tv == nil {
		return
	}
	tv.out.write(p.Data)
	s.pushTerminal(ss, tv)
}

// pushTerminal queues the update that shows tv as it is when it goes out
// (terminalUpdate); one queued at a time.
func (s *server) pushTerminal(ss *session, tv *termView) {
	s.out.push("term:"+ss.id+":"+tv.id, func() {
		ss.mu.Lock()
		u := s.terminalUpdate(tv)
		ss.mu.Unlock()
		if u != nil {
			s.send(ss.id, sdk.SessionUpdate{ToolCallUpdate: u})
		}
	})
}

// terminalUpdate is the update that shows tv's output now, nil when there
// is nothing to show. Called with ss.mu held.
func (s *server) terminalUpdate(tv *termView) *sdk.SessionToolCallUpdate {
	u := &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: sdk.ToolCallId(tv.callID)}
	if s.termMeta.Load() {
		data := tv.out.take()
		if data == "" {
			return nil
		}
		u.Meta = map[string]any{"terminal_output": map[string]any{"terminal_id": tv.callID, "data": data}}
		return u
	}
	u.Content = tv.content()
	if len(u.Content) == 0 {
		return nil
	}
	return u
}

func (s *server) terminalExited(ss *session, p event.TerminalExited) {
	tv := ss.view.terms[p.TerminalID]
	if tv == nil {
		return
	}
	tv.exited, tv.code = true, p.ExitCode
	if tv.callEnded {
		delete(ss.view.terms, tv.id)
	}
	if !s.termMeta.Load() {
		// The text, its exit code said, once the output before it is.
		s.pushTerminal(ss, tv)
		return
	}
	s.push(ss, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: sdk.ToolCallId(tv.callID),
		Meta: map[string]any{"terminal_exit": map[string]any{"terminal_id": tv.callID, "exit_code": p.ExitCode, "signal": nil}}}})
}

// terminalResult ends a call that started a terminal: its status, and
// the terminal stays its content (its text, without terminal_output).
func (s *server) terminalResult(ss *session, p event.ToolResult) bool {
	c := ss.view.calls[p.CallID]
	if c == nil || c.term == nil {
		return false
	}
	delete(ss.view.calls, p.CallID)
	tv := c.term
	tv.callEnded = true
	if tv.exited {
		delete(ss.view.terms, tv.id)
	}
	status := sdk.ToolCallStatusCompleted
	if p.Status != event.ToolCompleted {
		status = sdk.ToolCallStatusFailed
	}
	if s.termMeta.Load() {
		s.push(ss, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: sdk.ToolCallId(p.CallID), Status: sdk.Ptr(status)}})
		return true
	}
	// The text as it is when the update goes out: output queued before
	// it may go out first, with what came after it.
	s.out.push("", func() {
		ss.mu.Lock()
		content := tv.content()
		ss.mu.Unlock()
		s.send(ss.id, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: sdk.ToolCallId(p.CallID), Status: sdk.Ptr(status), Content: content}})
	})
	return true
}

// content is the terminal as text: its output, and a line that says it
// runs on or how it ended.
func (tv *termView) content() []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	if text := tv.out.String(); text != "" {
		out = append(out, textContent(fenced(text)))
	}
	switch {
	case tv.exited:
		out = append(out, textContent(fmt.Sprintf("Command session %s exited with code %d.", tv.id, tv.code)))
	case tv.callEnded:
		out = append(out, textContent(fmt.Sprintf("Runs on as command session %s: /terminals lists it, /kill %s stops it.", tv.id, tv.id)))
	}
	return out
}

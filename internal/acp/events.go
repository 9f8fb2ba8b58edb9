package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Bounds of what a tool call shows: the protocol replaces a tool call's
// content with each update, so the whole shown output travels each time.
const (
	maxShownOutput = 32 << 10
)

// eventView turns one session's agent events into session updates: it
// remembers each tool call's kind, live output and diff blocks, and which
// messages arrived as deltas.
type eventView struct {
	calls  map[string]*callView
	deltas map[string]bool      // item ids whose text streamed as deltas
	terms  map[string]*termView // command sessions by terminalId (terminals.go)
}

type callView struct {
	kind    event.ToolKind
	hidden  bool // update_plan: shown as the plan itself
	running bool // shown in_progress
	out     tail
	diffs   []sdk.ToolCallContent
	locs    []sdk.ToolCallLocation
	title   string
	raw     any
	term    *termView // the command session the call started
}

func newEventView() *eventView {
	return &eventView{calls: map[string]*callView{}, deltas: map[string]bool{}, terms: map[string]*termView{}}
}

// tail keeps the end of a command's output.
type tail struct {
	buf     []byte
	dropped int
}

func (t *tail) write(s string) {
	t.buf = append(t.buf, s...)
	if over := len(t.buf) - maxShownOutput; over > 0 {
		// cut at a line start when one is near, for a clean first line
		cut := over
		if i := strings.IndexByte(string(t.buf[over:min(len(t.buf), over+256)]), '\n'); i >= 0 {
			cut = over + i + 1
		}
		t.dropped += cut
		t.buf = append(t.buf[:0], t.buf[cut:]...)
	}
}

// take returns what String does and empties t.
func (t *tail) take() string {
	s := t.String()
	t.buf, t.dropped = t.buf[:0], 0
	return s
}

func (t *tail) String() string {
	if t.dropped > 0 {
		return fmt.Sprintf("[… %d earlier bytes not shown]\n%s", t.dropped, t.buf)
	}
	return string(t.buf)
}

// bounded shortens text for a tool call's content.
func bounded(s string) string {
	if len(s) <= maxShownOutput {
		return s
	}
	return s[:maxShownOutput] + fmt.Sprintf("\n[… %d more bytes not shown]", len(s)-maxShownOutput)
}

// fenced shows text as a code block, with a fence longer than any run of
// backticks inside it.
func fenced(s string) string {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return fence + "\n" + s + fence
}

func textContent(s string) sdk.ToolCallContent { return sdk.ToolContent(sdk.TextBlock(s)) }

// Event receives the agent's events (agent.Frontend). It only queues:
// the outbox sends in order.
func (s *server) Event(ev event.Event) { s.queueEvent(ev) }

// queueEvent queues what ev tells the client.
func (s *server) queueEvent(ev event.Event) {
	s.mu.Lock()
	ss := s.byAgent[ev.SessionID]
	s.mu.Unlock()
	if ss == nil {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if out, ok := ev.Payload.(event.ExecOutput); ok {
		c := ss.view.calls[out.CallID]
		if c == nil {
			return
		}
		c.out.write(out.Chunk)
		c.running = true
		// The output so far, sent when the client takes it: a client
		// that reads slowly gets the latest state, not every chunk.
		s.out.push("out:"+ss.id+":"+out.CallID, func() {
			ss.mu.Lock()
			text := fenced(c.out.String())
			ss.mu.Unlock()
			u := &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: sdk.ToolCallId(out.CallID),
				Status: sdk.Ptr(sdk.ToolCallStatusInProgress), Content: []sdk.ToolCallContent{textContent(text)}}
			s.send(ss.id, sdk.SessionUpdate{ToolCallUpdate: u})
		})
		return
	}
	if tc, ok := ev.Payload.(event.TurnStarted); ok && !ss.titled && tc.Prompt != "" {
		ss.titled = true
		s.push(ss, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{SessionUpdate: "session_info_update", Title: sdk.Ptr(title(tc.Prompt))}})
	}
	if mc, ok := ev.Payload.(event.ModeChanged); ok {
		s.modeChanged(ss, agent.Mode(mc.Mode))
	}
	if s.terminalEvent(ss, ev) {
		return
	}
	ss.noteEvent(ev)
	for _, u := range ss.view.updates(ev, ss.info.Cwd, false) {
		s.push(ss, u)
	}
}

// noteEvent remembers the turns that changed files (for /undo). Called
// with ss.mu held.
func (ss *session) noteEvent(ev event.Event) {
	if fc, ok := ev.Payload.(event.FileChange); ok && fc.Status == event.ChangeApplied {
		if n := len(ss.changing); n == 0 || ss.changing[n-1] != ev.TurnID {
			ss.changing = append(ss.changing, ev.TurnID)
		}
	}
}

// CallStarted shows a pending call running (agent.CallStarter): a call
// that needed no question, or the user allowed.
func (s *server) CallStarted(sessionID, callID string) {
	s.mu.Lock()
	ss := s.byAgent[sessionID]
	s.mu.Unlock()
	if ss != nil {
		s.callStarted(ss, sdk.ToolCallId(callID))
	}
}

// callStarted shows call in_progress, once.
func (s *server) callStarted(ss *session, call sdk.ToolCallId) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	c := ss.view.calls[string(call)]
	if c == nil || c.running || c.hidden {
		return
	}
	c.running = true
	s.push(ss, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: call, Status: sdk.Ptr(sdk.ToolCallStatusInProgress)}})
}

// title is a session's title from its first prompt.
func title(prompt string) string {
	t := strings.TrimSpace(prompt)
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	if r := []rune(t); len(r) > 80 {
		t = string(r[:79]) + "…"
	}
	return t
}

// updates are the session updates one event makes. replay: the event
// comes from a session's record (session/load), where the user's prompt
// is shown too.
func (v *eventView) updates(ev event.Event, cwd string, replay bool) []sdk.SessionUpdate {
	var u *sdk.SessionUpdate
	switch p := ev.Payload.(type) {
	case event.TurnStarted:
		if replay && p.Prompt != "" {
			u = sdk.Ptr(sdk.UpdateUserMessageText(p.Prompt))
		}
	case event.MessageDelta:
		u = v.delta(p.ItemID, p.Delta, sdk.UpdateAgentMessageText)
	case event.Message:
		u = v.whole(p.ItemID, p.Text, sdk.UpdateAgentMessageText)
	case event.ReasoningDelta:
		u = v.delta(p.ItemID, p.Delta, sdk.UpdateAgentThoughtText)
	case event.Reasoning:
		u = v.whole(p.ItemID, p.Text, sdk.UpdateAgentThoughtText)
	case event.ToolCall:
		u = v.toolCall(p, cwd, replay)
	case event.FileChange:
		u = v.fileChange(p, cwd)
	case event.ToolResult:
		u = v.toolResult(p)
	case event.ToolProgress:
		u = v.toolProgress(p)
	case event.Plan:
		u = planUpdate(p)
	case event.Usage:
		// usage_update is stable in the protocol (TypeScript SDK 2.4.0);
		// the Go SDK v0.13.5 has the same type, marked unstable.
		// The provider's rate limits left ride in _meta.agentLs.
		if p.ContextWindow > 0 {
			uu := &sdk.SessionUsageUpdate{SessionUpdate: "usage_update", Used: int(p.ContextTokens), Size: int(p.ContextWindow)}
			if p.RateLimits != nil {
				uu.Meta = map[string]any{"agentLs": map[string]any{"rateLimits": p.RateLimits}}
			}
			u = &sdk.SessionUpdate{UsageUpdate: uu}
		}
	case event.WebSearch:
		u = webSearchUpdate(p)
	case event.Compacted:
		u = sdk.Ptr(sdk.UpdateAgentMessageText(fmt.Sprintf("\n\n(The conversation so far was summarised to free the model's context: about %d tokens before, %d after.)\n\n", p.TokensBefore, p.TokensAfter)))
	case event.TurnCompleted:
		if replay && p.Status == event.StatusFailed && p.Error != "" {
			u = sdk.Ptr(sdk.UpdateAgentMessageText("\n\n(the turn failed: " + p.Error + ")"))
		}
	}
	if u == nil {
		return nil
	}
	return []sdk.SessionUpdate{*u}
}

// delta is a piece of a message's or a thought's text as it streams; the
// item is remembered as streamed.
func (v *eventView) delta(item, text string, chunk func(string) sdk.SessionUpdate) *sdk.SessionUpdate {
	v.deltas[item] = true
	if text == "" {
		return nil
	}
	return sdk.Ptr(chunk(text))
}

// whole is a message or a thought complete: its text, unless it
// streamed as deltas already.
func (v *eventView) whole(item, text string, chunk func(string) sdk.SessionUpdate) *sdk.SessionUpdate {
	streamed := v.deltas[item]
	delete(v.deltas, item)
	if streamed || text == "" {
		return nil
	}
	return sdk.Ptr(chunk(text))
}

// toolCall starts a tool call (update_plan's is the plan, not a call).
func (v *eventView) toolCall(p event.ToolCall, cwd string, replay bool) *sdk.SessionUpdate {
	c := &callView{kind: p.Kind, hidden: p.Tool == "update_plan"}
	v.calls[p.CallID] = c
	if c.hidden {
		return nil
	}
	c.locs = argLocations(p.Arguments, cwd)
	c.title, c.raw = textcut.VisibleLine(p.Title), rawInput(p.Arguments)
	// Calls that may need an approval wait as pending until they start
	// (CallStarted) or show output; the others run at once.
	status := sdk.ToolCallStatusInProgress
	if !replay && (p.Kind == event.KindExecute || p.Kind == event.KindEdit || p.Kind == event.KindDelete || p.Kind == event.KindMove || p.Kind == event.KindOther) {
		status = sdk.ToolCallStatusPending
	}
	c.running = status == sdk.ToolCallStatusInProgress
	return &sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{SessionUpdate: "tool_call", ToolCallId: sdk.ToolCallId(p.CallID),
		Title: c.title, Kind: toolKind(p.Kind), Status: status, Locations: c.locs, RawInput: c.raw}}
}

// fileChange gives a call the diff blocks and the files of its change.
func (v *eventView) fileChange(p event.FileChange, cwd string) *sdk.SessionUpdate {
	c := v.calls[p.CallID]
	if c == nil {
		c = &callView{kind: event.KindEdit}
		v.calls[p.CallID] = c
	}
	c.diffs = diffBlocks(p.Diff, cwd)
	c.locs = changeLocations(p.Changes)
	return &sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: sdk.ToolCallId(p.CallID),
		Content: c.diffs, Locations: c.locs}}
}

// toolProgress shows how far a running call has come (an MCP server's
// progress, rate-limited where it is made) as the call's content.
func (v *eventView) toolProgress(p event.ToolProgress) *sdk.SessionUpdate {
	c := v.calls[p.CallID]
	if c == nil || c.hidden {
		return nil
	}
	c.running = true
	return &sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: sdk.ToolCallId(p.CallID),
		Status: sdk.Ptr(sdk.ToolCallStatusInProgress), Content: []sdk.ToolCallContent{textContent("Progress: " + textcut.VisibleLine(p.Text()))}}}
}

// toolResult ends a call: completed or failed, with its diff blocks (and
// the output when it failed) or its output.
func (v *eventView) toolResult(p event.ToolResult) *sdk.SessionUpdate {
	c := v.calls[p.CallID]
	if c == nil {
		c = &callView{kind: event.KindOther}
	}
	delete(v.calls, p.CallID)
	if c.hidden {
		return nil
	}
	status := sdk.ToolCallStatusCompleted
	if p.Status != event.ToolCompleted {
		status = sdk.ToolCallStatusFailed
	}
	var content []sdk.ToolCallContent
	switch {
	case len(c.diffs) > 0:
		content = append(content, c.diffs...)
		if status != sdk.ToolCallStatusCompleted {
			content = append(content, textContent(bounded(p.Output)))
		}
	case p.Output != "":
		content = []sdk.ToolCallContent{textContent(fenced(bounded(p.Output)))}
	}
	return &sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: sdk.ToolCallId(p.CallID),
		Status: sdk.Ptr(status), Content: content}}
}

func planUpdate(p event.Plan) *sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(p.Steps))
	for _, st := range p.Steps {
		entries = append(entries, sdk.PlanEntry{Content: st.Step, Priority: sdk.PlanEntryPriorityMedium, Status: planStatus(st.Status)})
	}
	return &sdk.SessionUpdate{Plan: &sdk.SessionUpdatePlan{SessionUpdate: "plan", Entries: entries}}
}

func toolKind(k event.ToolKind) sdk.ToolKind {
	switch k {
	case event.KindRead, event.KindEdit, event.KindDelete, event.KindMove, event.KindSearch, event.KindExecute, event.KindThink, event.KindFetch:
		return sdk.ToolKind(k)
	}
	return sdk.ToolKindOther
}

func planStatus(s event.StepStatus) sdk.PlanEntryStatus {
	switch s {
	case event.StepInProgress:
		return sdk.PlanEntryStatusInProgress
	case event.StepCompleted:
		return sdk.PlanEntryStatusCompleted
	}
	return sdk.PlanEntryStatusPending
}

// rawInput is the call's arguments as JSON, nil when they are not.
func rawInput(args json.RawMessage) any {
	if len(args) == 0 || !json.Valid(args) {
		return nil
	}
	return args
}

// argLocations are the files a call's arguments name, for the client to
// follow.
func argLocations(args json.RawMessage, cwd string) []sdk.ToolCallLocation {
	var a struct {
		FilePath string `json:"file_path"`
		DirPath  string `json:"dir_path"`
		Path     string `json:"path"`
		Offset   int    `json:"offset"`
	}
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	for _, p := range []string{a.FilePath, a.DirPath, a.Path} {
		if p != "" {
			loc := sdk.ToolCallLocation{Path: absPath(p, cwd)}
			if a.Offset > 0 && a.FilePath != "" {
				loc.Line = sdk.Ptr(a.Offset)
			}
			return []sdk.ToolCallLocation{loc}
		}
	}
	return nil
}

func changeLocations(changes []event.FileChangeEntry) []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	for _, c := range changes {
		u := c.URI
		if c.NewURI != "" {
			u = c.NewURI
		}
		if p := uriPath(u); p != "" {
			out = append(out, sdk.ToolCallLocation{Path: p})
		}
	}
	return out
}

// uriPath is the path of a file URI, "" for anything else.
func uriPath(u string) string {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "file" {
		return ""
	}
	return parsed.Path
}

// push queues an update about ss; callers may hold ss.mu (ss.id never
// changes).
func (s *server) push(ss *session, u sdk.SessionUpdate) {
	s.out.push("", func() { s.send(ss.id, u) })
}

// send writes one session/update now (from the outbox).
func (s *server) send(id string, u sdk.SessionUpdate) {
	if err := s.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u}); err != nil {
		s.log.Debug("acp: session/update not sent", "session", id, "err", err)
	}
}

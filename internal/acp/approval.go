package acp

import (
	"cmp"
	"context"
	"net"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// The permission options: one of each kind the protocol has, each named
// after its kind (its optionId is the kind too). Clients bind the options
// to keys by kind, and some compare ids with kinds, so two options of one
// kind would leave one unreachable, or read "no" as "stop": a client's
// "no" here rejects the call and tells the model. The user ends the turn
// with the client's own stop (session/cancel), which answers a pending
// permission request "cancelled".
var permissionOptions = []struct {
	decision string // the agent's
	name     string
	kind     sdk.PermissionOptionKind
}{
	{agent.AllowOnce, "Allow once", sdk.PermissionOptionKindAllowOnce},
	{agent.AllowAlways, "Allow always", sdk.PermissionOptionKindAllowAlways},
	{agent.RejectOnce, "Reject", sdk.PermissionOptionKindRejectOnce},
	{agent.RejectAlways, "Reject always", sdk.PermissionOptionKindRejectAlways},
}

// alwaysNames name the "always" options by what they cover (the agent
// remembers an "always" answer for exactly that): clients show the name
// on the button and bind it by its kind.
var alwaysNames = map[agent.ApprovalKind][2]string{
	agent.ApprovalExec:  {"Always allow this exact command in this folder", "Always reject this exact command in this folder"},
	agent.ApprovalPatch: {"Always allow changes to these files", "Always reject changes to these files"},
	agent.ApprovalTool:  {"Always allow this tool", "Always reject this tool"},
	// A network question's "always" is for the session: a client that
	// shows forms is then asked whether to write the host to the config
	// (persistForm); any other leaves that to the config.
	agent.ApprovalNetwork: {"Allow this host for the rest of the session", ""},
}

// RequestApproval asks the client (agent.Frontend): session/request_permission
// with the tool call (for a command its command, folder and reason, for a
// patch its diff blocks). "Allow always" is remembered by the agent for
// the session, with the same scope as in the language server (the
// question says it), and kept with the session's record.
func (s *server) RequestApproval(ctx context.Context, req *agent.ApprovalRequest) (string, error) {
	s.mu.Lock()
	ss := s.byAgent[req.SessionID]
	s.mu.Unlock()
	if ss == nil {
		return agent.RejectOnce, nil
	}
	tc := approvalToolCall(req, ss.cwdOf())
	opts := approvalOptions(req)
	// The client must have the tool call before it is asked about it.
	if err := s.out.flush(ctx); err != nil {
		return agent.Abort, err
	}
	resp, err := s.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(ss.id), ToolCall: tc, Options: opts})
	switch {
	case ctx.Err() != nil:
		return agent.Abort, ctx.Err()
	case err != nil:
		s.log.Warn("acp: session/request_permission failed; rejecting", "err", err)
		return agent.RejectOnce, nil
	}
	d := s.approvalAnswer(ss, tc.ToolCallId, opts, resp.Outcome)
	if d == agent.AllowAlways && s.canPersist(req) {
		// Persisting is offered where the client shows forms.
		d = s.persistForm(ctx, ss, req)
	}
	return d, nil
}

// approvalToolCall is the tool call a permission request is about: the
// command with its folder and reason, the patch with its diff blocks, or
// the tool with its arguments.
func approvalToolCall(req *agent.ApprovalRequest, cwd string) sdk.ToolCallUpdate {
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.CallID), Status: sdk.Ptr(sdk.ToolCallStatusPending)}
	if req.CallID == "" {
		tc.ToolCallId = sdk.ToolCallId(req.ApprovalID)
	}
	switch req.Kind {
	case agent.ApprovalExec:
		cmd := shownCommand(req.Command)
		tc.Kind = sdk.Ptr(sdk.ToolKindExecute)
		tc.Title = sdk.Ptr(execTitle(cmd, req, cwd))
		text := "Run `" + cmd + "` in " + textcut.VisibleLine(req.Cwd)
		if req.Reason != "" {
			text += "\n\n" + textcut.Visible(req.Reason)
		}
		tc.Content = []sdk.ToolCallContent{textContent(text)}
		tc.RawInput = map[string]any{"command": req.Command, "cwd": req.Cwd, "reason": req.Reason}
	case agent.ApprovalPatch:
		tc.Kind = sdk.Ptr(sdk.ToolKindEdit)
		tc.Content = diffBlocks(req.Diff, cwd)
		if req.Reason != "" {
			tc.Content = append(tc.Content, textContent(textcut.Visible(req.Reason)))
		}
		for _, f := range req.Files {
			tc.Locations = append(tc.Locations, sdk.ToolCallLocation{Path: f})
		}
	case agent.ApprovalNetwork:
		hp := textcut.VisibleLine(net.JoinHostPort(req.Host, strconv.Itoa(req.Port)))
		tc.Kind = sdk.Ptr(sdk.ToolKindFetch)
		tc.Title = sdk.Ptr("Connect to " + hp)
		tc.Content = []sdk.ToolCallContent{textContent(textcut.Visible(req.Reason))}
		tc.RawInput = map[string]any{"host": req.Host, "port": req.Port, "command": req.NetCommand, "patterns": req.Patterns}
	default:
		tc.Kind = sdk.Ptr(toolKind(event.KindOther))
		tc.Title = sdk.Ptr(textcut.VisibleLine(req.Tool))
		tc.RawInput = rawInput(req.Arguments)
		if req.Reason != "" {
			tc.Content = []sdk.ToolCallContent{textContent(textcut.Visible(req.Reason))}
		}
	}
	if req.Always != "" && (contains(req.Options, agent.AllowAlways) || contains(req.Options, agent.RejectAlways)) {
		tc.Content = append(tc.Content, textContent("An \"always\" answer covers "+req.Always+"."))
	}
	return tc
}

// execTitle is the title of a command's permission request: the call's
// own ("Run CMD"), with its folder when not the session's and the first
// line of why it is asked. Some clients (codecompanion) show only the
// title with the options.
func execTitle(cmd string, req *agent.ApprovalRequest, cwd string) string {
	t := "Run " + cmd
	if req.Cwd != "" && req.Cwd != cwd {
		t += " in " + textcut.VisibleLine(req.Cwd)
	}
	if why := textcut.VisibleLine(textcut.FirstLine(req.Reason, 160)); why != "" {
		t += " (" + why + ")"
	}
	return t
}

// approvalOptions are the options the request offers, in the order
// allow once, allow always, reject once, reject always.
func approvalOptions(req *agent.ApprovalRequest) []sdk.PermissionOption {
	var opts []sdk.PermissionOption
	for _, o := range permissionOptions {
		if !contains(req.Options, o.decision) {
			continue
		}
		name := o.name
		switch names := alwaysNames[req.Kind]; o.decision {
		case agent.AllowAlways:
			name = cmp.Or(names[0], name)
		case agent.RejectAlways:
			name = cmp.Or(names[1], name)
		}
		opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(o.kind), Name: name, Kind: o.kind})
	}
	return opts
}

// approvalAnswer is the agent's decision for the client's outcome: a
// cancelled request ends the turn (the client stopped it), an option
// offered is taken (the tool call shown running when it allows), anything
// else rejects.
func (s *server) approvalAnswer(ss *session, call sdk.ToolCallId, opts []sdk.PermissionOption, outcome sdk.RequestPermissionOutcome) string {
	switch {
	case outcome.Cancelled != nil:
		return agent.Abort
	case outcome.Selected != nil:
		id := outcome.Selected.OptionId
		for _, o := range opts {
			if o.OptionId != id {
				continue
			}
			if o.Kind == sdk.PermissionOptionKindAllowOnce || o.Kind == sdk.PermissionOptionKindAllowAlways {
				s.callStarted(ss, call)
			}
			return decisionOf(o.Kind)
		}
		s.log.Warn("acp: the client picked an option it was not offered; rejecting", "option", id)
	}
	return agent.RejectOnce
}

// decisionOf is the agent's decision for an option of kind.
func decisionOf(kind sdk.PermissionOptionKind) string {
	for _, po := range permissionOptions {
		if po.kind == kind {
			return po.decision
		}
	}
	return agent.RejectOnce
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// shownCommand is argv as a person approving it reads it: `bash -lc
// SCRIPT` as SCRIPT when every character of it shows as itself, else
// (and any other argv) as agent.QuoteCommand quotes it, escapes visible,
// so that a client printing it to a terminal shows what runs.
func shownCommand(argv []string) string {
	if len(argv) == 3 && (argv[0] == "bash" || argv[0] == "sh" || argv[0] == "zsh") && (argv[1] == "-lc" || argv[1] == "-c") &&
		textcut.VisibleLine(argv[2]) == argv[2] {
		return argv[2]
	}
	return agent.QuoteCommand(argv)
}

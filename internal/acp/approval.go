package acp

import (
	"context"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
)

// The permission options: the optionIds are ours, the kinds the
// protocol's. "Abort" ends the turn (kind reject_once, as Codex's adapter
// does it); an outcome "cancelled" is Abort too.
const abortOption = "abort"

var permissionOptions = []struct {
	id, name string
	kind     sdk.PermissionOptionKind
}{
	{agent.AllowOnce, "Allow once", sdk.PermissionOptionKindAllowOnce},
	{agent.AllowAlways, "Allow always", sdk.PermissionOptionKindAllowAlways},
	{agent.RejectOnce, "Reject", sdk.PermissionOptionKindRejectOnce},
	{abortOption, "Abort (end the turn)", sdk.PermissionOptionKindRejectOnce},
}

// alwaysNames name the allow_always option by what it covers (the
// agent remembers an "always" answer for exactly that): clients show the
// name on the button and bind it by its kind, which stays allow_always.
var alwaysNames = map[agent.ApprovalKind]string{
	agent.ApprovalExec:  "Always allow this exact command in this folder",
	agent.ApprovalPatch: "Always allow changes to these files",
	agent.ApprovalTool:  "Always allow this tool",
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
	return s.approvalAnswer(ss, tc.ToolCallId, opts, resp.Outcome), nil
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
		cmd := shellJoin(req.Command)
		tc.Kind = sdk.Ptr(sdk.ToolKindExecute)
		tc.Title = sdk.Ptr(cmd)
		text := "Run `" + cmd + "` in " + req.Cwd
		if req.Reason != "" {
			text += "\n\n" + req.Reason
		}
		tc.Content = []sdk.ToolCallContent{textContent(text)}
		tc.RawInput = map[string]any{"command": req.Command, "cwd": req.Cwd, "reason": req.Reason}
	case agent.ApprovalPatch:
		tc.Kind = sdk.Ptr(sdk.ToolKindEdit)
		tc.Content = diffBlocks(req.Diff, cwd)
		if req.Reason != "" {
			tc.Content = append(tc.Content, textContent(req.Reason))
		}
		for _, f := range req.Files {
			tc.Locations = append(tc.Locations, sdk.ToolCallLocation{Path: f})
		}
	default:
		tc.Kind = sdk.Ptr(toolKind(event.KindOther))
		tc.Title = sdk.Ptr(req.Tool)
		tc.RawInput = rawInput(req.Arguments)
		if req.Reason != "" {
			tc.Content = []sdk.ToolCallContent{textContent(req.Reason)}
		}
	}
	if req.Always != "" && contains(req.Options, agent.AllowAlways) {
		tc.Content = append(tc.Content, textContent("\"Always allow\" covers "+req.Always+"."))
	}
	return tc
}

// approvalOptions are the options the request offers, and Abort always.
func approvalOptions(req *agent.ApprovalRequest) []sdk.PermissionOption {
	var opts []sdk.PermissionOption
	for _, o := range permissionOptions {
		if o.id == abortOption || contains(req.Options, o.id) {
			name := o.name
			if o.id == agent.AllowAlways && alwaysNames[req.Kind] != "" {
				name = alwaysNames[req.Kind]
			}
			opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(o.id), Name: name, Kind: o.kind})
		}
	}
	return opts
}

// approvalAnswer is the agent's answer for the client's outcome: a
// cancelled request and Abort end the turn, an option offered is taken
// (the tool call shown running when it allows), anything else rejects.
func (s *server) approvalAnswer(ss *session, call sdk.ToolCallId, opts []sdk.PermissionOption, outcome sdk.RequestPermissionOutcome) string {
	switch {
	case outcome.Cancelled != nil:
		return agent.Abort
	case outcome.Selected != nil:
		id := string(outcome.Selected.OptionId)
		if id == abortOption {
			return agent.Abort
		}
		for _, o := range opts {
			if string(o.OptionId) == id {
				if o.Kind == sdk.PermissionOptionKindAllowOnce || o.Kind == sdk.PermissionOptionKindAllowAlways {
					s.push(ss, sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallId: call, Status: sdk.Ptr(sdk.ToolCallStatusInProgress)}})
				}
				return id
			}
		}
		s.log.Warn("acp: the client picked an option it was not offered; rejecting", "option", id)
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

// shellJoin shows argv as one command line; `bash -lc SCRIPT` as SCRIPT.
func shellJoin(argv []string) string {
	if len(argv) == 3 && (argv[0] == "bash" || argv[0] == "sh" || argv[0] == "zsh") && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`|&;<>()*?[]{}~#") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// turnApprover is the tools.Approver of one turn.
type turnApprover struct{ t *turn }

func (a turnApprover) Exec(ctx context.Context, req tools.ExecRequest) (tools.ExecDecision, error) {
	s := a.t.s
	mode := s.info.SandboxMode
	if a.t.plan {
		mode = policy.ReadOnly
	}
	v, sandboxed, reason := execVerdict(s.info.ApprovalPolicy, mode, req)
	outside := "this command would run outside the sandbox"
	if _, why := s.mgr.sandboxState(); why != "" && sandboxed {
		v, sandboxed, reason = unconfinedVerdict(s.info.ApprovalPolicy, why, v, reason)
		outside = "no sandbox is available here (" + why + "), so this command would run unconfined"
	}
	if s.mgr.opts.Unattended && v == ask && !sandboxed {
		v, reason = forbid, unattendedRefusal(outside)
	}
	if a.t.plan && v != forbid && !sandboxed {
		v, reason = forbid, planRefusal(outside)
	}
	scope := scopeOf(sandboxed)
	if stored, ok := s.approvals.lookupCommand(req.Command, req.Cwd, scope); ok {
		switch {
		case !stored.allow:
			return execDecision(a.refuse(ApprovalExec, "refused: the user rejected this command for the rest of the session"), sandboxed), nil
		case v != forbid:
			return execDecision(a.allow(ApprovalExec), sandboxed), nil
		}
	}
	switch v {
	case run:
		return execDecision(a.allow(ApprovalExec), sandboxed), nil
	case forbid:
		return execDecision(a.refuse(ApprovalExec, reason), sandboxed), nil
	}
	always := alwaysInSandbox
	if !sandboxed {
		always = alwaysOutsideSandbox
	}
	d, err := a.ask(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalExec, Command: req.Command, Cwd: req.Cwd, Reason: reason, Always: always},
		func(allow bool) {
			s.approvals.rememberCommand(storedCommand{argv: slices.Clone(req.Command), cwd: req.Cwd, scope: scope, allow: allow})
		})
	return execDecision(d, sandboxed), err
}

func (a turnApprover) RetryUnsandboxed(ctx context.Context, req tools.ExecRequest, output string) (tools.Decision, error) {
	s := a.t.s
	if a.t.plan {
		return a.refuse(ApprovalExec, planRefusal("the read-only sandbox blocked this command, so it was not run again without the sandbox")), nil
	}
	switch s.info.ApprovalPolicy {
	case policy.OnRequest, policy.Never:
		// The denial goes back to the model, which may ask for
		// escalation (on-request) or must do without (never).
		return tools.Decision{}, nil
	}
	if s.mgr.opts.Unattended {
		return a.refuse(ApprovalExec, unattendedRefusal("the sandbox blocked this command, so it was not run again without the sandbox")), nil
	}
	// Only an answer to this same question covers it: allowing the
	// command to run outside the sandbox when the model asked for that is
	// another question, with another reason shown.
	if stored, ok := s.approvals.lookupCommand(req.Command, req.Cwd, retryOutside); ok {
		if !stored.allow {
			return a.refuse(ApprovalExec, "refused: the user rejected running this command without the sandbox for the rest of the session"), nil
		}
		return a.allow(ApprovalExec), nil
	}
	return a.ask(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalExec, Command: req.Command, Cwd: req.Cwd,
		Reason: "The sandbox blocked this command (" + textcut.FirstLine(output, 200) + "). Run it again without the sandbox?", Always: alwaysRetry},
		func(allow bool) {
			s.approvals.rememberCommand(storedCommand{argv: slices.Clone(req.Command), cwd: req.Cwd, scope: retryOutside, allow: allow})
		})
}

func (a turnApprover) Patch(ctx context.Context, req tools.PatchRequest) (tools.Decision, error) {
	s := a.t.s
	if a.t.plan {
		return a.refuse(ApprovalPatch, planRefusal("this change would write files")), nil
	}
	outside := outsideTargets(req.Targets)
	if len(req.Targets) != len(req.Paths) {
		// Every path must have been resolved against the boundary.
		outside = append(outside, "the change's real targets are unknown")
	}
	v, reason := patchVerdict(s.info.ApprovalPolicy, outside)
	if s.mgr.opts.Unattended && v == ask && len(outside) > 0 {
		v, reason = forbid, unattendedRefusal("this change writes where the agent may not write on its own: "+strings.Join(outside, "; "))
	}
	reals := make([]string, len(req.Targets))
	for i, t := range req.Targets {
		reals[i] = t.Real
	}
	if v != forbid {
		if decided, allowed := s.approvals.filesDecided(reals); decided {
			if allowed {
				return a.allow(ApprovalPatch), nil
			}
			return a.refuse(ApprovalPatch, "refused: the user rejected changes to these files for the rest of the session"), nil
		}
	}
	switch v {
	case run:
		return a.allow(ApprovalPatch), nil
	case forbid:
		return a.refuse(ApprovalPatch, reason), nil
	}
	return a.ask(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalPatch, Files: req.Paths, Diff: req.Diff, Additions: req.Additions, Deletions: req.Deletions,
		Cwd: s.info.Cwd, Reason: strings.TrimSpace(req.Summary + "\n" + reason), Always: alwaysFiles},
		func(allow bool) { s.approvals.rememberFiles(reals, allow) })
}

// Tool decides a call of a tool from outside agent-ls (an MCP server's),
// which runs outside the sandbox: one annotated read-only runs; others run
// without asking only where the user's config says so for the server
// (approval = "auto") or the approval policy is on-failure, ask under
// untrusted and on-request, and are refused under never and when nobody
// is there to ask (exec --yes).
func (a turnApprover) Tool(ctx context.Context, req tools.ToolRequest) (tools.Decision, error) {
	s := a.t.s
	if req.ReadOnly {
		return tools.Decision{Allowed: true}, nil
	}
	key := toolKey{req.Server, req.Tool}
	name := fmt.Sprintf("%s (MCP server %s)", req.Tool, req.Server)
	if a.t.plan {
		return a.refuse(ApprovalTool, planRefusal(name+" is not marked read-only, so it may change things")), nil
	}
	if decided, allowed := s.approvals.toolDecided(key); decided && !allowed {
		return a.refuse(ApprovalTool, "refused: the user rejected calls of "+name+" for the rest of the session"), nil
	}
	if req.AutoApprove {
		return a.allow(ApprovalTool), nil
	}
	switch {
	case s.mgr.opts.Unattended:
		return a.refuse(ApprovalTool, unattendedRefusal(name+" may change things outside the sandbox (its server does not mark it read-only), and only read-only MCP tools run unattended unless the user's config sets approval = \"auto\" for the server")), nil
	case s.info.ApprovalPolicy == policy.Never:
		return a.refuse(ApprovalTool, "refused: "+name+" runs outside the sandbox and its server does not mark it read-only, and the approval policy \"never\" allows only read-only MCP tools unless the user's config sets approval = \"auto\" for the server; do the work another way or tell the user what to run"), nil
	}
	if decided, _ := s.approvals.toolDecided(key); decided {
		return a.allow(ApprovalTool), nil
	}
	if s.info.ApprovalPolicy == policy.OnFailure {
		return a.allow(ApprovalTool), nil
	}
	return a.ask(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalTool, Tool: req.Tool, Server: req.Server, Arguments: req.Arguments, Cwd: s.info.Cwd,
		Reason: "The MCP server " + req.Server + " runs this tool outside the sandbox, and does not mark it read-only.", Always: alwaysTool},
		func(allow bool) { s.approvals.rememberTool(key, allow) })
}

// allow reports an action of kind that goes ahead without asking the user
// (the policy or an "always" answer allows it).
func (a turnApprover) allow(kind ApprovalKind) tools.Decision {
	a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(kind), Decision: AutoAllow})
	return tools.Decision{Allowed: true}
}

// refuse reports an action of kind refused without asking the user (by
// the policy or an "always" answer); reason tells the model why.
func (a turnApprover) refuse(kind ApprovalKind, reason string) tools.Decision {
	a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(kind), Decision: AutoReject})
	return tools.Decision{Reason: reason}
}

// ask puts req to the user and turns the answer into the tool's decision;
// an "always" answer (allow or reject) is also given to remember, for the
// rest of the session.
func (a turnApprover) ask(ctx context.Context, req *ApprovalRequest, remember func(allow bool)) (tools.Decision, error) {
	decision, err := a.t.askUser(ctx, req)
	if err != nil {
		return tools.Decision{}, err
	}
	switch decision {
	case AllowAlways, RejectAlways:
		remember(decision == AllowAlways)
	}
	if decision == AllowOnce || decision == AllowAlways {
		return tools.Decision{Allowed: true}, nil
	}
	return tools.Decision{Reason: rejection(decision)}, nil
}

// execDecision is d for a command that runs in the sandbox or not, if it
// runs.
func execDecision(d tools.Decision, sandboxed bool) tools.ExecDecision {
	return tools.ExecDecision{Decision: d, Sandboxed: d.Allowed && sandboxed}
}

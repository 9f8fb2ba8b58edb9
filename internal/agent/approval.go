package agent

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// Approval decisions (protocol section 6). The user picks one of the
// first five; the last two record what the policy decided on its own.
const (
	AllowOnce    = "allowOnce"
	AllowAlways  = "allowAlways"
	RejectOnce   = "rejectOnce"
	RejectAlways = "rejectAlways"
	Abort        = "abort"
	AutoAllow    = "autoAllow"
	AutoReject   = "autoReject"
)

// ApprovalKind says what an approval request is about (protocol
// section 6).
type ApprovalKind string

// Approval kinds.
const (
	// ApprovalExec: a command (Command, Cwd).
	ApprovalExec ApprovalKind = "exec"
	// ApprovalPatch: a change to files (Files, Diff).
	ApprovalPatch ApprovalKind = "patch"
	// ApprovalTool: a call of any other tool (Tool, Arguments), such as
	// one an MCP server offers.
	ApprovalTool ApprovalKind = "tool"
)

// ApprovalRequest asks the user to decide an action.
type ApprovalRequest struct {
	SessionID  string
	TurnID     string
	ApprovalID string
	// CallID is the tool call the approval is for ("" when unknown).
	CallID string
	Kind   ApprovalKind
	// Command and Cwd describe an exec; Files and Diff a patch.
	Command []string
	Cwd     string
	Files   []string
	Diff    string
	// Additions and Deletions count the lines the patch adds and removes.
	Additions, Deletions int
	// Reason says why the agent asks, in words for the user.
	Reason string
	// Tool and Arguments describe a tool call; Server names the MCP
	// server the tool belongs to (Tool is its name there).
	Tool      string
	Server    string
	Arguments json.RawMessage
	// Options are the decisions the user may pick.
	Options []string
	// Always says, in words for the user, what an "always" answer (allow
	// or reject) covers for the rest of the session, so the question
	// says it: for a command, this exact command in this folder with this
	// sandbox request; for a patch, these files; for a tool, this tool.
	Always string
}

// What an "always" answer covers (ApprovalRequest.Always).
const (
	alwaysInSandbox      = "this exact command (the same words, nothing longer) in this folder, run in the sandbox, for the rest of the session"
	alwaysOutsideSandbox = "this exact command (the same words, nothing longer) in this folder, run outside the sandbox, for the rest of the session"
	alwaysRetry          = "running this exact command (the same words, nothing longer) in this folder again without the sandbox when the sandbox blocks it, for the rest of the session"
	alwaysFiles          = "changes to these same files, for the rest of the session"
	alwaysTool           = "calls of this tool of this MCP server, whatever their arguments, for the rest of the session"
)

// approvalStore remembers "always" answers for the session: commands
// exactly (argv, cwd and how they run), patches by file, calls of other
// tools by server and tool.
type approvalStore struct {
	mu       sync.Mutex
	commands []storedCommand
	files    map[string]bool  // path → allowed (true) or rejected (false)
	tools    map[toolKey]bool // tool → allowed (true) or rejected (false)
	// observe, when set, is told of each answer remembered (not of those
	// restored from a record).
	observe func(ApprovalRule)
}

// execScope is how a command runs: what the user was asked about besides
// its words and folder.
type execScope int

const (
	inSandbox      execScope = iota // in the sandbox
	outsideSandbox                  // without one (escalated, full access, or none here)
	retryOutside                    // again without the sandbox after the sandbox blocked it
)

// scopeOf is the scope of a command that runs sandboxed or not.
func scopeOf(sandboxed bool) execScope {
	if sandboxed {
		return inSandbox
	}
	return outsideSandbox
}

type storedCommand struct {
	argv  []string
	cwd   string
	scope execScope
	allow bool
}

// lookupCommand finds the stored answer for exactly argv in cwd run in
// scope: the question the user answered "always" was about that command,
// so the answer covers nothing longer (`git log -1 --oneline` does not
// cover `git log -1 --oneline --output=/elsewhere`, nor `find . -name x`
// `find . -name x -exec rm {} +`), no other folder and no other sandbox
// request (allowing it in the sandbox says nothing about running it
// outside). A "reject always" is exact too, though refusing more would be
// safe: the question said "this exact command", the model is told the
// user refused this command, and a broader refusal would also refuse
// what the policy runs without asking (the same command in the sandbox
// after its escalation was refused).
func (s *approvalStore) lookupCommand(argv []string, cwd string, scope execScope) (storedCommand, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.commands) - 1; i >= 0; i-- {
		c := s.commands[i]
		if c.cwd == cwd && c.scope == scope && slices.Equal(c.argv, argv) {
			return c, true
		}
	}
	return storedCommand{}, false
}

func (s *approvalStore) rememberCommand(c storedCommand) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commands = append(s.commands, c)
	if s.observe != nil {
		s.observe(ApprovalRule{Command: c.argv, Cwd: c.cwd, Allow: c.allow, Unsandbox: c.scope == outsideSandbox, Retry: c.scope == retryOutside})
	}
}

// toolKey names a tool for its "always" answer.
type toolKey struct{ server, tool string }

// toolDecided reports whether the tool has a stored answer, and whether it
// allows.
func (s *approvalStore) toolDecided(k toolKey) (decided, allowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	allowed, decided = s.tools[k]
	return decided, allowed
}

func (s *approvalStore) rememberTool(k toolKey, allow bool) {
	s.setTool(k, allow)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.observe != nil {
		s.observe(ApprovalRule{Server: k.server, Tool: k.tool, Allow: allow})
	}
}

func (s *approvalStore) setTool(k toolKey, allow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools == nil {
		s.tools = make(map[toolKey]bool)
	}
	s.tools[k] = allow
}

// restore brings back an answer from a session's record. A command's
// answer means the exact command, whatever the agent-ls that wrote the
// record made of it (older ones took it as a prefix); a rejection in an
// older record, which did not say how the command was to run, is taken
// as one about running it in the sandbox.
func (s *approvalStore) restore(r ApprovalRule) {
	if r.Tool != "" {
		s.setTool(toolKey{r.Server, r.Tool}, r.Allow)
		return
	}
	if len(r.Command) > 0 {
		s.mu.Lock()
		scope := inSandbox
		switch {
		case r.Retry:
			scope = retryOutside
		case r.Unsandbox:
			scope = outsideSandbox
		}
		s.commands = append(s.commands, storedCommand{argv: slices.Clone(r.Command), cwd: r.Cwd, scope: scope, allow: r.Allow})
		s.mu.Unlock()
		return
	}
	s.setFiles(r.Files, r.Allow)
}

// filesDecided reports whether every path has a stored answer, and
// whether all of them allow.
func (s *approvalStore) filesDecided(paths []string) (decided, allowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	allowed = true
	for _, p := range paths {
		a, ok := s.files[p]
		if !ok {
			return false, false
		}
		allowed = allowed && a
	}
	return len(paths) > 0, allowed
}

func (s *approvalStore) rememberFiles(paths []string, allow bool) {
	s.setFiles(paths, allow)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.observe != nil {
		s.observe(ApprovalRule{Files: paths, Allow: allow})
	}
}

func (s *approvalStore) setFiles(paths []string, allow bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = make(map[string]bool)
	}
	for _, p := range paths {
		s.files[p] = allow
	}
}

// verdict is what the policy says about an action before anyone is asked.
type verdict int

const (
	run    verdict = iota // go ahead without asking
	ask                   // the user decides
	forbid                // refused, nobody is asked
)

// execVerdict applies the approval policy and sandbox mode to a command
// (protocol section 8). sandboxed says whether it runs in the sandbox if it
// runs; reason explains an ask or a refusal.
func execVerdict(ap policy.ApprovalPolicy, mode policy.SandboxMode, req tools.ExecRequest) (v verdict, sandboxed bool, reason string) {
	sandboxed = mode != policy.DangerFullAccess
	if why, bad := dangerous(req.Command); bad {
		if ap == policy.Never {
			return forbid, sandboxed, fmt.Sprintf("refused: %s, and the approval policy \"never\" does not allow dangerous commands", why)
		}
		return ask, sandboxed, "This command is dangerous: " + why + "."
	}
	if req.Escalated && sandboxed {
		if ap == policy.Never {
			return forbid, sandboxed, "refused: the approval policy \"never\" does not allow running commands outside the sandbox; do the work inside the sandbox or tell the user what to run"
		}
		reason := "The agent asks to run this command outside the sandbox"
		if req.Justification != "" {
			reason += ": " + req.Justification
		}
		return ask, false, reason + "."
	}
	if ap == policy.Untrusted && !knownSafe(req.Command) {
		return ask, sandboxed, "The approval policy \"untrusted\" asks before every command that is not known to only read."
	}
	return run, sandboxed, ""
}

// unconfinedVerdict turns execVerdict's verdict v (and reason) on a
// command meant for the sandbox into the verdict where no sandbox can
// confine it (why says so): the command would run with the user's own
// rights, so it never runs without the user's word, and under "never"
// not at all.
func unconfinedVerdict(ap policy.ApprovalPolicy, why string, v verdict, reason string) (verdict, bool, string) {
	if v == forbid {
		return v, false, reason
	}
	if ap == policy.Never {
		return forbid, false, "refused: no sandbox is available here (" + why + "), so this command would run unconfined, and the approval policy \"never\" does not allow running commands outside the sandbox; do the work with the file tools, or tell the user what to run"
	}
	unconfined := "No sandbox is available here (" + why + "), so this command would run unconfined, with the user's own rights."
	if reason != "" {
		unconfined = reason + " " + unconfined
	}
	return ask, false, unconfined
}

// patchVerdict applies the approval policy to a change of files: changes
// whose every target may be written without asking apply; others ask (or
// are refused under "never"); "untrusted" always asks. outside explains
// the targets that may not be written.
func patchVerdict(ap policy.ApprovalPolicy, outside []string) (verdict, string) {
	why := strings.Join(outside, "; ")
	switch {
	case ap == policy.Untrusted:
		if why != "" {
			return ask, "The approval policy \"untrusted\" asks before every file change, and " + why + "."
		}
		return ask, "The approval policy \"untrusted\" asks before every file change."
	case why == "":
		return run, ""
	case ap == policy.Never:
		return forbid, "refused: " + why + ", and the approval policy \"never\" does not allow changing it"
	}
	return ask, "The change writes where the agent may not write on its own: " + why + "."
}

// outsideTargets explains each target that may not be written without
// asking.
func outsideTargets(targets []policy.Target) []string {
	var out []string
	for _, t := range targets {
		if !t.Writable {
			out = append(out, t.Why)
		}
	}
	return out
}

// unattendedRefusal is the output for an action an unattended run cannot
// allow.
func unattendedRefusal(what string) string {
	return "refused: agent-ls runs unattended (exec --yes or --full-auto), which allows only what stays inside the sandbox and the writable folders, and " + what + ". Do the work inside the workspace and the sandbox, or tell the user what to run themselves."
}

// turnApprover is the tools.Approver of one turn.
type turnApprover struct{ t *turn }

func (a turnApprover) Exec(ctx context.Context, req tools.ExecRequest) (tools.ExecDecision, error) {
	s := a.t.s
	v, sandboxed, reason := execVerdict(s.info.ApprovalPolicy, s.info.SandboxMode, req)
	outside := "this command would run outside the sandbox"
	if _, why := s.mgr.sandboxState(); why != "" && sandboxed {
		v, sandboxed, reason = unconfinedVerdict(s.info.ApprovalPolicy, why, v, reason)
		outside = "no sandbox is available here (" + why + "), so this command would run unconfined"
	}
	if s.mgr.opts.Unattended && v == ask && !sandboxed {
		v, reason = forbid, unattendedRefusal(outside)
	}
	scope := scopeOf(sandboxed)
	if stored, ok := s.approvals.lookupCommand(req.Command, req.Cwd, scope); ok {
		id := a.t.nextApprovalID()
		if !stored.allow {
			a.t.emit(event.Approval{ApprovalID: id, Kind: string(ApprovalExec), Decision: AutoReject})
			return tools.ExecDecision{Decision: tools.Decision{Reason: "refused: the user rejected this command for the rest of the session"}}, nil
		}
		if v != forbid {
			a.t.emit(event.Approval{ApprovalID: id, Kind: string(ApprovalExec), Decision: AutoAllow})
			return tools.ExecDecision{Decision: tools.Decision{Allowed: true}, Sandboxed: sandboxed}, nil
		}
	}
	switch v {
	case run:
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalExec), Decision: AutoAllow})
		return tools.ExecDecision{Decision: tools.Decision{Allowed: true}, Sandboxed: sandboxed}, nil
	case forbid:
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalExec), Decision: AutoReject})
		return tools.ExecDecision{Decision: tools.Decision{Reason: reason}}, nil
	}
	always := alwaysInSandbox
	if !sandboxed {
		always = alwaysOutsideSandbox
	}
	decision, err := a.t.askUser(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalExec, Command: req.Command, Cwd: req.Cwd, Reason: reason, Always: always})
	if err != nil {
		return tools.ExecDecision{}, err
	}
	switch decision {
	case AllowAlways, RejectAlways:
		s.approvals.rememberCommand(storedCommand{argv: slices.Clone(req.Command), cwd: req.Cwd, scope: scope, allow: decision == AllowAlways})
	}
	if decision == AllowOnce || decision == AllowAlways {
		return tools.ExecDecision{Decision: tools.Decision{Allowed: true}, Sandboxed: sandboxed}, nil
	}
	return tools.ExecDecision{Decision: tools.Decision{Reason: rejection(decision)}}, nil
}

func (a turnApprover) RetryUnsandboxed(ctx context.Context, req tools.ExecRequest, output string) (tools.Decision, error) {
	s := a.t.s
	switch s.info.ApprovalPolicy {
	case policy.OnRequest, policy.Never:
		// The denial goes back to the model, which may ask for
		// escalation (on-request) or must do without (never).
		return tools.Decision{}, nil
	}
	if s.mgr.opts.Unattended {
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalExec), Decision: AutoReject})
		return tools.Decision{Reason: unattendedRefusal("the sandbox blocked this command, so it was not run again without the sandbox")}, nil
	}
	// Only an answer to this same question covers it: allowing the
	// command to run outside the sandbox when the model asked for that is
	// another question, with another reason shown.
	if stored, ok := s.approvals.lookupCommand(req.Command, req.Cwd, retryOutside); ok {
		if !stored.allow {
			a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalExec), Decision: AutoReject})
			return tools.Decision{Reason: "refused: the user rejected running this command without the sandbox for the rest of the session"}, nil
		}
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalExec), Decision: AutoAllow})
		return tools.Decision{Allowed: true}, nil
	}
	decision, err := a.t.askUser(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalExec, Command: req.Command, Cwd: req.Cwd,
		Reason: "The sandbox blocked this command (" + textcut.FirstLine(output, 200) + "). Run it again without the sandbox?", Always: alwaysRetry})
	if err != nil {
		return tools.Decision{}, err
	}
	switch decision {
	case AllowAlways, RejectAlways:
		s.approvals.rememberCommand(storedCommand{argv: slices.Clone(req.Command), cwd: req.Cwd, scope: retryOutside, allow: decision == AllowAlways})
	}
	if decision == AllowOnce || decision == AllowAlways {
		return tools.Decision{Allowed: true}, nil
	}
	return tools.Decision{Reason: rejection(decision)}, nil
}

func (a turnApprover) Patch(ctx context.Context, req tools.PatchRequest) (tools.Decision, error) {
	s := a.t.s
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
				a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalPatch), Decision: AutoAllow})
				return tools.Decision{Allowed: true}, nil
			}
			a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalPatch), Decision: AutoReject})
			return tools.Decision{Reason: "refused: the user rejected changes to these files for the rest of the session"}, nil
		}
	}
	switch v {
	case run:
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalPatch), Decision: AutoAllow})
		return tools.Decision{Allowed: true}, nil
	case forbid:
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalPatch), Decision: AutoReject})
		return tools.Decision{Reason: reason}, nil
	}
	decision, err := a.t.askUser(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalPatch, Files: req.Paths, Diff: req.Diff, Additions: req.Additions, Deletions: req.Deletions,
		Cwd: s.info.Cwd, Reason: strings.TrimSpace(req.Summary + "\n" + reason), Always: alwaysFiles})
	if err != nil {
		return tools.Decision{}, err
	}
	switch decision {
	case AllowAlways, RejectAlways:
		s.approvals.rememberFiles(reals, decision == AllowAlways)
	}
	if decision == AllowOnce || decision == AllowAlways {
		return tools.Decision{Allowed: true}, nil
	}
	return tools.Decision{Reason: rejection(decision)}, nil
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
	if decided, allowed := s.approvals.toolDecided(key); decided && !allowed {
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalTool), Decision: AutoReject})
		return tools.Decision{Reason: "refused: the user rejected calls of " + name + " for the rest of the session"}, nil
	}
	if req.AutoApprove {
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalTool), Decision: AutoAllow})
		return tools.Decision{Allowed: true}, nil
	}
	switch {
	case s.mgr.opts.Unattended:
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalTool), Decision: AutoReject})
		return tools.Decision{Reason: unattendedRefusal(name + " may change things outside the sandbox (its server does not mark it read-only), and only read-only MCP tools run unattended unless the user's config sets approval = \"auto\" for the server")}, nil
	case s.info.ApprovalPolicy == policy.Never:
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalTool), Decision: AutoReject})
		return tools.Decision{Reason: "refused: " + name + " runs outside the sandbox and its server does not mark it read-only, and the approval policy \"never\" allows only read-only MCP tools unless the user's config sets approval = \"auto\" for the server; do the work another way or tell the user what to run"}, nil
	}
	if decided, _ := s.approvals.toolDecided(key); decided {
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalTool), Decision: AutoAllow})
		return tools.Decision{Allowed: true}, nil
	}
	if s.info.ApprovalPolicy == policy.OnFailure {
		a.t.emit(event.Approval{ApprovalID: a.t.nextApprovalID(), Kind: string(ApprovalTool), Decision: AutoAllow})
		return tools.Decision{Allowed: true}, nil
	}
	decision, err := a.t.askUser(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalTool, Tool: req.Tool, Server: req.Server, Arguments: req.Arguments, Cwd: s.info.Cwd,
		Reason: "The MCP server " + req.Server + " runs this tool outside the sandbox, and does not mark it read-only.", Always: alwaysTool})
	if err != nil {
		return tools.Decision{}, err
	}
	switch decision {
	case AllowAlways, RejectAlways:
		s.approvals.rememberTool(key, decision == AllowAlways)
	}
	if decision == AllowOnce || decision == AllowAlways {
		return tools.Decision{Allowed: true}, nil
	}
	return tools.Decision{Reason: rejection(decision)}, nil
}

// askUser puts a request to the frontend and reports the outcome as an
// approval event. No answer, an error or an interrupt rejects; "abort"
// also ends the turn.
func (t *turn) askUser(ctx context.Context, req *ApprovalRequest) (string, error) {
	req.SessionID, req.TurnID, req.ApprovalID = t.s.info.SessionID, t.id, t.nextApprovalID()
	req.Options = []string{AllowOnce, AllowAlways, RejectOnce, RejectAlways}
	decision := RejectOnce
	d, err := t.s.mgr.opts.Frontend.RequestApproval(ctx, req)
	switch {
	case ctx.Err() != nil:
		decision = Abort
	case err != nil:
		t.s.mgr.log.Warn("approval request failed; rejecting", "approval", req.ApprovalID, "err", err)
	case d == AllowOnce, d == AllowAlways, d == RejectOnce, d == RejectAlways, d == Abort:
		decision = d
	case d != "":
		t.s.mgr.log.Warn("unknown approval decision; rejecting", "approval", req.ApprovalID, "decision", d)
	}
	t.emit(event.Approval{ApprovalID: req.ApprovalID, Kind: string(req.Kind), Decision: decision})
	if decision == Abort {
		t.interrupted.Store(true)
		t.cancel()
		return Abort, ctx.Err()
	}
	return decision, nil
}

func rejection(decision string) string {
	switch decision {
	case RejectAlways:
		return "rejected: the user declined this and anything like it for the rest of the session; do not ask again, find another way or stop"
	case Abort:
		return "aborted: the user stopped the turn"
	}
	return "rejected: the user declined this action; find another way, or ask the user how to proceed"
}

func (t *turn) nextApprovalID() string {
	return fmt.Sprintf("%s-a%d", t.id, t.approvals.Add(1))
}

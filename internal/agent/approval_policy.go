package agent

import (
	"fmt"
	"strings"

	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

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

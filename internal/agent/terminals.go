package agent

import (
	"context"
	"fmt"
	"strconv"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// The tools of the two ways of running commands.
var (
	classicExecTools = []string{"shell"}
	unifiedExecTools = []string{"exec_command", "write_stdin"}
)

// execTools is snap with the session's way of running commands: either
// exec_command and write_stdin (use_unified_exec, or the model family
// when it is unset) or shell. Under unified exec a call of shell still
// runs, unoffered: models trained on it call it anyway.
func (s *session) execTools(snap *tools.Snapshot) *tools.Snapshot {
	unified := false
	if s.cfg.UnifiedExec != nil {
		unified = *s.cfg.UnifiedExec
	} else if fam, _ := familyOf(s.info.Model); fam.unifiedExec {
		unified = true
	}
	if unified {
		return snap.Unoffered(classicExecTools...)
	}
	return snap.Without(unifiedExecTools...)
}

// emitTerminal sends a terminal event of the session: with the running
// turn's id, or "" between turns (a command session outlives its turn).
func (s *session) emitTerminal(p event.Payload) {
	turnID := ""
	s.mu.Lock()
	if t := s.running; t != nil {
		select {
		case <-t.ending:
		default:
			turnID = t.id
		}
	}
	s.mu.Unlock()
	s.emit(turnID, p)
}

// Input decides characters the model types into a command session that
// runs outside the sandbox: the user is asked each time, shown the exact
// characters; under "never" and in unattended runs such a session takes
// no input.
func (a turnApprover) Input(ctx context.Context, req tools.InputRequest) (tools.Decision, error) {
	s := a.t.s
	shown := strconv.QuoteToASCII(req.Chars)
	switch {
	case a.t.plan:
		return a.refuse(ApprovalExec, planRefusal("command session "+strconv.Itoa(req.SessionID)+" runs outside the sandbox, so it takes no input")), nil
	case s.mgr.opts.Unattended:
		return a.refuse(ApprovalExec, unattendedRefusal("command session "+strconv.Itoa(req.SessionID)+" runs outside the sandbox, so it takes no input")), nil
	case s.info.ApprovalPolicy == policy.Never:
		return a.refuse(ApprovalExec, "refused: command session "+strconv.Itoa(req.SessionID)+" runs outside the sandbox, and the approval policy \"never\" lets nothing be typed into it; end it or tell the user what to type"), nil
	case len(req.Chars) > maxAskedInput:
		return a.refuse(ApprovalExec, fmt.Sprintf("refused: command session %d runs outside the sandbox, where the user reads and approves each input whole; %d bytes are more than one question shows (at most %d): type it in parts, or write it to a file in the workspace and have the command read that",
			req.SessionID, len(req.Chars), maxAskedInput)), nil
	}
	return a.ask(ctx, &ApprovalRequest{CallID: req.CallID, Kind: ApprovalExec, Command: req.Command, Cwd: req.Cwd,
		Reason: fmt.Sprintf("The agent asks to type %s into command session %d, which runs outside the sandbox.", shown, req.SessionID),
		Always: alwaysStdin},
		func(bool) {})
}

// maxAskedInput bounds the input for a command outside the sandbox that
// the user is asked about: the question shows it whole, escaped.
const maxAskedInput = 4096

// alwaysStdin: an "always" answer to input for a command outside the
// sandbox covers this input only; the next is asked again.
const alwaysStdin = "only these characters, this once: the next input for this command is asked again"

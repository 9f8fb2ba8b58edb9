package agent

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// allowance is what a session's policy lets a command run with: its
// sandbox mode, whether sandboxed commands may use the network, and its
// approval policy (under "never" nothing leaves the sandbox).
type allowance struct {
	mode     policy.SandboxMode
	approval policy.ApprovalPolicy
	network  bool
}

// allowanceOf is what settings info and cfg let commands run with.
func allowanceOf(info SessionInfo, cfg Defaults) allowance {
	return allowance{mode: info.SandboxMode, approval: info.ApprovalPolicy,
		network: info.SandboxMode == policy.DangerFullAccess || (info.SandboxMode == policy.WorkspaceWrite && cfg.NetworkAccess)}
}

// allowanceFor is what a session that chose o would run with under the
// defaults d, as settle works it out (without building its settings);
// ok is false when o and d do not make a valid policy.
func allowanceFor(o SessionOptions, d Defaults) (allowance, bool) {
	approval, mode, err := parsePolicies(cmp.Or(o.ApprovalPolicy, d.ApprovalPolicy), cmp.Or(o.SandboxMode, d.SandboxMode))
	if err != nil {
		return allowance{}, false
	}
	if mode == policy.WorkspaceWrite && !d.AllowHomeWorkspace && homeWorkspace(o.Cwd) {
		mode = policy.ReadOnly
	}
	return allowanceOf(SessionInfo{SandboxMode: mode, ApprovalPolicy: approval}, d), true
}

// modeRank orders the sandbox modes from the narrowest.
func modeRank(m policy.SandboxMode) int {
	switch m {
	case policy.ReadOnly:
		return 0
	case policy.WorkspaceWrite:
		return 1
	}
	return 2
}

// exceeds says how command session ti runs with more than a allows, ""
// when it does not: outside the sandbox where a no longer lets it out
// (a narrower sandbox mode, or "never"), writing the workspace under
// read-only, with the network where a has it off.
func (a allowance) exceeds(ti TerminalInfo) string {
	if !ti.Sandboxed || ti.Mode == policy.DangerFullAccess {
		switch {
		case a.mode == policy.DangerFullAccess:
			return ""
		case ti.Mode == policy.DangerFullAccess:
			return "it ran without a sandbox under danger-full-access, and the sandbox mode is now " + string(a.mode)
		case a.approval == policy.Never:
			return "it ran outside the sandbox, and the approval policy is now never"
		case modeRank(a.mode) < modeRank(ti.Mode):
			return "it ran outside the sandbox, and the sandbox mode is now " + string(a.mode)
		}
		return ""
	}
	switch {
	case ti.Mode == policy.WorkspaceWrite && a.mode == policy.ReadOnly:
		return "it could write the workspace, and the sandbox mode is now read-only"
	case ti.Network && !a.network:
		return "it could use the network, which is now off"
	}
	return ""
}

// narrowTerminals kills the session's command sessions that run with
// more than a allows, and tells the model at its next request; the user
// sees them end (terminalExited) and the listing says why. Called with
// no lock of s held.
func (s *session) narrowTerminals(sessionID string, a allowance) {
	reasons := map[int]string{}
	ids := s.terminals.KillIf("because the policy became stricter", func(ti TerminalInfo) bool {
		why := a.exceeds(ti)
		if why != "" {
			reasons[ti.ID] = why
		}
		return why != ""
	})
	if len(ids) == 0 {
		return
	}
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d: %s", id, reasons[id])
	}
	s.mgr.log.Info("command sessions killed by a stricter policy", "session", sessionID, "terminals", b.String())
	s.mu.Lock()
	s.notes = append(s.notes, "The session's policy became stricter, so agent-ls killed "+sessionWords(ids)+" ("+b.String()+"). Start again what you still need under the new policy.")
	s.mu.Unlock()
}

// narrowAll applies the defaults d to the command sessions of every
// session now, not at their next turn: a stricter policy must not leave
// a wider command running meanwhile.
func (m *Manager) narrowAll(d Defaults) {
	m.mu.Lock()
	sessions := make(map[string]*session, len(m.sessions))
	for id, s := range m.sessions {
		sessions[id] = s
	}
	m.mu.Unlock()
	for id, s := range sessions {
		s.mu.Lock()
		o := s.opts
		s.mu.Unlock()
		if a, ok := allowanceFor(o, d); ok {
			s.narrowTerminals(id, a)
		}
	}
}

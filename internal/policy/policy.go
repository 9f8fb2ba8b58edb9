// Package policy is the one place that says what a session may do on its
// own: the approval policy (when to ask the user), the sandbox mode, and
// the session's boundary, which decides what lies inside the project and
// what may be written without asking. The approval decisions, the sandbox
// helper, the tools' read and write checks and the environment context the
// model sees all ask a [Boundary]; none of them decides containment by
// itself.
//
// Every decision is made on real paths: the symlinks of a path and of its
// nearest existing parent are resolved first, so a link inside the
// workspace that points outside it is outside, and the protected names
// (.git, .agents, .agent-ls, and the real git directory a .git file points
// to) stay protected whatever directory a command runs in.
package policy

import (
	"fmt"
	"strings"
)

// ApprovalPolicy says when the agent asks the user before acting
// (protocol section 8).
type ApprovalPolicy string

// The approval policies.
const (
	// Untrusted asks before every command not known to only read, and
	// before every file change.
	Untrusted ApprovalPolicy = "untrusted"
	// OnFailure runs commands in the sandbox and asks to rerun one
	// without it when the sandbox blocked it.
	OnFailure ApprovalPolicy = "on-failure"
	// OnRequest runs commands in the sandbox and asks when the model
	// requests more (escalation) or a change leaves the writable roots.
	OnRequest ApprovalPolicy = "on-request"
	// Never never asks: whatever would need the user is refused.
	Never ApprovalPolicy = "never"
)

// ApprovalPolicies lists the valid approval policies, in the order the
// protocol gives them.
var ApprovalPolicies = []ApprovalPolicy{Untrusted, OnFailure, OnRequest, Never}

// DefaultApprovalPolicy is the policy of a session that names none.
const DefaultApprovalPolicy = OnRequest

// ParseApprovalPolicy returns the policy named s; "" is the default.
func ParseApprovalPolicy(s string) (ApprovalPolicy, error) {
	if s == "" {
		return DefaultApprovalPolicy, nil
	}
	for _, p := range ApprovalPolicies {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown approval policy %q (use %s)", s, list(ApprovalPolicies))
}

// SandboxMode says how commands are confined (protocol section 8).
type SandboxMode string

// The sandbox modes.
const (
	// ReadOnly: commands may read everything and write nothing.
	ReadOnly SandboxMode = "read-only"
	// WorkspaceWrite: commands may write the writable roots (the project
	// root, configured roots, /tmp and $TMPDIR), protected names excepted.
	WorkspaceWrite SandboxMode = "workspace-write"
	// DangerFullAccess: no sandbox at all.
	DangerFullAccess SandboxMode = "danger-full-access"
)

// SandboxModes lists the valid sandbox modes.
var SandboxModes = []SandboxMode{ReadOnly, WorkspaceWrite, DangerFullAccess}

// DefaultSandboxMode is the mode of a session that names none.
const DefaultSandboxMode = WorkspaceWrite

// ParseSandboxMode returns the mode named s; "" is the default.
func ParseSandboxMode(s string) (SandboxMode, error) {
	if s == "" {
		return DefaultSandboxMode, nil
	}
	for _, m := range SandboxModes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown sandbox mode %q (use %s)", s, list(SandboxModes))
}

func list[T ~string](vs []T) string {
	words := make([]string, len(vs))
	for i, v := range vs {
		words[i] = string(v)
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

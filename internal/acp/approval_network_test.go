package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// TestNetworkPermission: a network question is a permission request with
// allow_once, allow_always (this session) and reject_once, titled with
// the host and port; persisting is not offered.
func TestNetworkPermission(t *testing.T) {
	req := &agent.ApprovalRequest{ApprovalID: "a1", CallID: "call_2", Kind: agent.ApprovalNetwork, Host: "pypi.org", Port: 443,
		NetCommand: "pip download x", Patterns: []string{"pypi.org"}, Reason: "The command pip download x wants to connect to pypi.org:443.",
		Options: []string{agent.AllowOnce, agent.AllowAlways, agent.AllowPersist, agent.RejectOnce}}
	opts := approvalOptions(req)
	var kinds []sdk.PermissionOptionKind
	for _, o := range opts {
		kinds = append(kinds, o.Kind)
	}
	want := []sdk.PermissionOptionKind{sdk.PermissionOptionKindAllowOnce, sdk.PermissionOptionKindAllowAlways, sdk.PermissionOptionKindRejectOnce}
	if len(kinds) != len(want) || kinds[0] != want[0] || kinds[1] != want[1] || kinds[2] != want[2] {
		t.Fatalf("options %v, want %v", kinds, want)
	}
	if opts[1].Name != "Allow this host for the rest of the session" {
		t.Errorf("allow_always is named %q", opts[1].Name)
	}
	tc := approvalToolCall(req, "/w")
	if tc.Title == nil || *tc.Title != "Connect to pypi.org:443" || tc.Kind == nil || *tc.Kind != sdk.ToolKindFetch || string(tc.ToolCallId) != "call_2" {
		t.Errorf("tool call %+v", tc)
	}
	if in, _ := tc.RawInput.(map[string]any); in["host"] != "pypi.org" || in["port"] != 443 || in["command"] != "pip download x" {
		t.Errorf("raw input %v", tc.RawInput)
	}
}

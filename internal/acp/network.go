package acp

// The network config option: the network of the session's commands in
// the workspace sandbox, which a client may only narrow (on, ask, off)
// from what the configuration gives; and, for a client that shows forms,
// writing a host the user allowed to the config.

import (
	"context"
	"net"
	"slices"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/elicit"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// networkChoices describe the network modes, narrowest first.
var networkChoices = map[policy.NetworkMode]string{
	policy.NetworkOff: "Commands in the workspace sandbox have no network",
	policy.NetworkAsk: "Commands reach a host only when you allow it (asked per host, or allowed_domains in the config)",
	policy.NetworkOn:  "Commands in the workspace sandbox reach any host, unasked",
}

// networkValues are the network modes a session with info may choose:
// the configuration's and the narrower ones.
func networkValues(info agent.SessionInfo) []policy.NetworkMode {
	limit := slices.Index(policy.NetworkModes, info.NetworkLimit)
	if limit < 0 {
		// a session whose limit is unknown may only keep what it has
		limit = max(slices.Index(policy.NetworkModes, info.Network), 0)
	}
	return policy.NetworkModes[:limit+1]
}

// networkOption is the network config option of a session with info.
func networkOption(info agent.SessionInfo) sdk.SessionConfigOption {
	var opts []sdk.SessionConfigSelectOption
	for _, m := range networkValues(info) {
		opts = append(opts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: networkName(m), Description: sdk.Ptr(networkChoices[m])})
	}
	cur := info.Network
	if cur == "" {
		cur = policy.NetworkOff
	}
	u := sdk.SessionConfigSelectOptionsUngrouped(opts)
	return sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{Type: "select", Id: "network", Name: "Network",
		Description:  sdk.Ptr("The network of commands in the workspace sandbox; it can only be narrowed from what the configuration allows"),
		CurrentValue: sdk.SessionConfigValueId(cur), Options: sdk.SessionConfigSelectOptions{Ungrouped: &u}}}
}

func networkName(m policy.NetworkMode) string {
	switch m {
	case policy.NetworkAsk:
		return "Ask per host"
	case policy.NetworkOn:
		return "On"
	}
	return "Off"
}

// setNetwork narrows the session's network to value, from its next turn
// on; a value wider than the configuration's is refused.
func (s *server) setNetwork(ss *session, value string) error {
	ss.mu.Lock()
	info := ss.info
	ss.mu.Unlock()
	m := policy.NetworkMode(value)
	if !slices.Contains(networkValues(info), m) {
		if _, err := policy.ParseNetworkMode(value); err != nil || value == "" {
			return invalidParams("unknown value %q of network (want off, ask or on)", value)
		}
		return invalidParams("network %q is wider than the configuration allows (%s): it can only be narrowed", value, info.NetworkLimit)
	}
	return s.update(ss, func(o *agent.SessionOptions) { o.Network = m })
}

// rememberField names the field of the form that offers to write a
// network host to the config; its choice onlySession leaves it out.
const (
	rememberField = "remember"
	onlySession   = "session"
)

// canPersist: the client shows forms, and the network question offers
// writing the host to the config.
func (s *server) canPersist(req *agent.ApprovalRequest) bool {
	s.mu.Lock()
	forms := s.client.Elicitation != nil && s.client.Elicitation.Form != nil
	s.mu.Unlock()
	return forms && req.Kind == agent.ApprovalNetwork && len(req.Patterns) > 0 && slices.Contains(req.Options, agent.AllowPersist)
}

// persistForm asks, after the user allowed a host for the session, as
// elicitation/create, whether to allow it in every later session too:
// a choice of "this session only" and each entry offered for
// allowed_domains. It answers agent.AllowPersist with the entry chosen
// (req.Pattern), or agent.AllowAlways: for this session only, which is
// also what a declined or cancelled form, or one that fails, gives.
func (s *server) persistForm(ctx context.Context, ss *session, req *agent.ApprovalRequest) string {
	hp := textcut.VisibleLine(net.JoinHostPort(req.Host, strconv.Itoa(req.Port)))
	choices := []elicit.Choice{{Value: onlySession, Title: "Only for this session"}}
	for _, p := range req.Patterns {
		choices = append(choices, elicit.Choice{Value: p, Title: "Always allow " + textcut.VisibleLine(p) + " (user config)"})
	}
	schema := &elicit.Schema{Fields: []elicit.Field{{Name: rememberField, Kind: elicit.Enum, Title: "Allow " + hp,
		Description: "An entry you choose is added to [sandbox_workspace_write] allowed_domains in your user config, for every later session.",
		Required:    true, Choices: choices, Default: onlySession, MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1}}}
	w := schema.Wire()
	scope := map[string]any{"sessionId": ss.id}
	if req.CallID != "" {
		scope["toolCallId"] = req.CallID
	}
	form := &sdk.UnstableCreateElicitationForm{Mode: "form", Message: "Allow " + hp + " in later sessions too?",
		RequestedSchema: sdk.UnstableElicitationSchema{Type: "object"}, Meta: map[string]any{scopeKey: scope}}
	form.RequestedSchema.Properties, _ = w["properties"].(map[string]any)
	form.RequestedSchema.Required, _ = w["required"].([]string)
	resp, err := s.conn.UnstableCreateElicitation(ctx, sdk.UnstableCreateElicitationRequest{Form: form})
	if err != nil || resp.Accept == nil {
		if err != nil && ctx.Err() == nil {
			s.log.Warn("acp: elicitation/create for a network host failed; allowed for the session", "err", err)
		}
		return agent.AllowAlways
	}
	content, err := schema.Check(resp.Accept.Content)
	chosen, _ := content[rememberField].(string)
	if err != nil || chosen == onlySession || !slices.Contains(req.Patterns, chosen) {
		return agent.AllowAlways
	}
	req.Pattern = chosen
	return agent.AllowPersist
}

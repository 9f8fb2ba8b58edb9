package acp

// A session's modes and config options: the approval and sandbox presets,
// the model and the reasoning effort, as session/new and the like offer
// them and session/set_mode and session/set_config_option change them.

import (
	"context"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// Modes: the approval and sandbox presets, as Codex names them.
type preset struct {
	id, name, description string
	approval, sandbox     string
}

var presets = []preset{
	{"read-only", "Read only", "Reads files; asks before any change or command outside the read-only sandbox", "on-request", "read-only"},
	{"auto", "Auto", "Edits files and runs commands in the workspace sandbox; asks before going outside it", "on-request", "workspace-write"},
	{"full-access", "Full access", "Edits anything and runs commands without a sandbox, without asking", "never", "danger-full-access"},
}

// modeOf is the preset a session's policies match, or a mode named after
// them when the configuration set another combination.
func modeOf(info agent.SessionInfo) preset {
	for _, p := range presets {
		if string(info.ApprovalPolicy) == p.approval && string(info.SandboxMode) == p.sandbox {
			return p
		}
	}
	return preset{id: "configured", name: "Configured (" + string(info.ApprovalPolicy) + ", " + string(info.SandboxMode) + ")",
		description: "The approval policy and sandbox of the configuration", approval: string(info.ApprovalPolicy), sandbox: string(info.SandboxMode)}
}

// availableModes are the presets, and the session's own combination when
// it is none of them.
func availableModes(info agent.SessionInfo) []preset {
	list := slices.Clone(presets)
	if cur := modeOf(info); cur.id == "configured" {
		list = append(list, cur)
	}
	return list
}

func (s *server) modes(info agent.SessionInfo) *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(modeOf(info).id), AvailableModes: []sdk.SessionMode{}}
	for _, p := range availableModes(info) {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(p.id), Name: p.name, Description: sdk.Ptr(p.description)})
	}
	return st
}

// efforts are the reasoning efforts offered; "" is the model's default.
var efforts = []string{"minimal", "low", "medium", "high"}

const defaultEffort = "default"

// configOptions are the session's mode, model and reasoning effort. The
// protocol asks agents to send both modes and config options while
// clients move from the one to the other.
func (s *server) configOptions(ss *session) []sdk.SessionConfigOption {
	ss.mu.Lock()
	info, effort := ss.info, ss.effort
	ss.mu.Unlock()
	return s.configOptionsOf(info, effort)
}

// configOptionsOf are the config options of a session with info and
// effort.
func (s *server) configOptionsOf(info agent.SessionInfo, effort string) []sdk.SessionConfigOption {
	sel := func(id, name string, cat sdk.SessionConfigOptionCategory, cur string, opts []sdk.SessionConfigSelectOption) sdk.SessionConfigOption {
		u := sdk.SessionConfigSelectOptionsUngrouped(opts)
		return sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{Type: "select", Id: sdk.SessionConfigId(id), Name: name,
			Category: sdk.Ptr(cat), CurrentValue: sdk.SessionConfigValueId(cur), Options: sdk.SessionConfigSelectOptions{Ungrouped: &u}}}
	}
	var modeOpts []sdk.SessionConfigSelectOption
	for _, p := range availableModes(info) {
		modeOpts = append(modeOpts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(p.id), Name: p.name, Description: sdk.Ptr(p.description)})
	}
	var modelOpts []sdk.SessionConfigSelectOption
	for _, m := range s.modelNames(info.Model) {
		modelOpts = append(modelOpts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: m})
	}
	effortOpts := []sdk.SessionConfigSelectOption{{Value: defaultEffort, Name: "Model default"}}
	for _, e := range efforts {
		effortOpts = append(effortOpts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(e), Name: strings.ToUpper(e[:1]) + e[1:]})
	}
	if effort == "" {
		effort = defaultEffort
	} else if !slices.Contains(efforts, effort) {
		// the configuration's own value, offered as it is
		effortOpts = append(effortOpts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(effort), Name: effort})
	}
	return []sdk.SessionConfigOption{
		sel("mode", "Mode", sdk.SessionConfigOptionCategoryMode, modeOf(info).id, modeOpts),
		sel("model", "Model", sdk.SessionConfigOptionCategoryModel, info.Model, modelOpts),
		sel("reasoning_effort", "Reasoning effort", sdk.SessionConfigOptionCategoryThoughtLevel, effort, effortOpts),
		planOption(info),
		networkOption(info),
	}
}

// modelNames are the models offered: the session's, the configured one
// and the configured list.
func (s *server) modelNames(current string) []string {
	var out []string
	for _, m := range append([]string{current, s.opts.Model}, s.opts.Models...) {
		if m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// SetSessionMode picks an approval and sandbox preset.
func (s *server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := s.setMode(ss, string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	s.push(ss, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: s.configOptions(ss)}})
	return sdk.SetSessionModeResponse{}, nil
}

func (s *server) setMode(ss *session, id string) error {
	ss.mu.Lock()
	info := ss.info
	ss.mu.Unlock()
	var chosen *preset
	for _, p := range availableModes(info) {
		if p.id == id {
			chosen = &p
		}
	}
	if chosen == nil {
		return invalidParams("unknown mode %q", id)
	}
	return s.update(ss, func(o *agent.SessionOptions) {
		o.ApprovalPolicy, o.SandboxMode = policy.ApprovalPolicy(chosen.approval), policy.SandboxMode(chosen.sandbox)
	})
}

// update changes the agent session's own settings.
func (s *server) update(ss *session, f func(*agent.SessionOptions)) error {
	a, err := s.theAgent()
	if err != nil {
		return err
	}
	info, err := a.UpdateSession(ss.agentIDLocked(), f)
	if err != nil {
		return requestError(err)
	}
	ss.mu.Lock()
	ss.info = info
	ss.mu.Unlock()
	return nil
}

// SetSessionConfigOption sets the mode, the model, the reasoning effort,
// plan mode (plan.go) or the network (network.go), and answers the whole new list.
func (s *server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, invalidParams("the config options of agent-ls take a value id")
	}
	ss, err := s.session(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	value := string(v.Value)
	switch v.ConfigId {
	case "mode":
		err = s.setMode(ss, value)
		if err == nil {
			s.push(ss, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{SessionUpdate: "current_mode_update", CurrentModeId: sdk.SessionModeId(value)}})
		}
	case "plan":
		err = s.setPlan(ss, value)
	case "network":
		err = s.setNetwork(ss, value)
	case "model":
		if strings.TrimSpace(value) == "" {
			return sdk.SetSessionConfigOptionResponse{}, invalidParams("empty model name")
		}
		err = s.update(ss, func(o *agent.SessionOptions) { o.Model = value })
	case "reasoning_effort":
		if value != defaultEffort && !slices.Contains(efforts, value) && value != s.opts.ReasoningEffort {
			return sdk.SetSessionConfigOptionResponse{}, invalidParams("unknown reasoning effort %q", value)
		}
		e := value
		if e == defaultEffort {
			e = s.opts.ReasoningEffort
		}
		err = s.update(ss, func(o *agent.SessionOptions) { o.ReasoningEffort = e })
		if err == nil {
			ss.mu.Lock()
			ss.effort = e
			ss.mu.Unlock()
		}
	default:
		return sdk.SetSessionConfigOptionResponse{}, invalidParams("unknown config option %q", v.ConfigId)
	}
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions(ss)}, nil
}

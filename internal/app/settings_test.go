package app

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// parseTest parses args as serve's settings under the environment env,
// with the user config file text ("" for none), and resolves them for no
// project.
func parseTest(t *testing.T, env map[string]string, userConfig string, args ...string) (Settings, int, bool) {
	t.Helper()
	for _, k := range []string{envModel, envProfile, model.EnvWireAPI, model.EnvBaseURL, model.EnvAPIKey, envStreamIdleTimeout} {
		t.Setenv(k, env[k])
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	if userConfig != "" {
		if err := os.MkdirAll(filepath.Join(home, "agent-ls"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "agent-ls", "config.toml"), []byte(userConfig), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var flags cmdFlags
	flags.register(fs)
	r, code, done := parseSettings(fs, &flags, args, "Usage: x", io.Discard, io.Discard)
	if done {
		return Settings{}, code, done
	}
	s, probs := r.resolve("", nil)
	for _, p := range probs {
		t.Errorf("config problem: %s", p)
	}
	return s, 0, false
}

// TestSettingsLayers: flags over the environment over the config file
// over the defaults, down to the model client's configuration; a bad
// variable that a flag overrides is no error.
func TestSettingsLayers(t *testing.T) {
	env := map[string]string{
		envModel: "env-model", model.EnvWireAPI: "Chat", model.EnvBaseURL: "http://127.0.0.1:9/v1", model.EnvAPIKey: "sk-env",
	}
	file := "model = \"file-model\"\napproval_policy = \"untrusted\"\n[model_providers.openai]\nhttp_headers = { X-Team = \"blue\" }\n"
	s, code, done := parseTest(t, env, file, "--sandbox", "read-only", "--network", "--writable-root", "out", "--log-level", "debug")
	if done {
		t.Fatalf("exit %d", code)
	}
	abs, _ := filepath.Abs("out")
	if s.Model != "env-model" || s.ApprovalPolicy != policy.Untrusted || s.SandboxMode != policy.ReadOnly || s.SandboxWorkspaceWrite.NetworkMode() != policy.NetworkOn ||
		!slices.Equal(s.SandboxWorkspaceWrite.WritableRoots, []string{abs}) || s.LogLevel != "debug" || s.MaxRequests != agent.DefaultMaxRequests {
		t.Errorf("settings %+v", s.Config)
	}
	want := model.Config{Provider: "openai", WireAPI: model.WireChat, BaseURL: "http://127.0.0.1:9/v1", APIKey: "sk-env", Headers: map[string]string{"X-Team": "blue"},
		EnvHTTPHeaders: map[string]string{"OpenAI-Organization": "OPENAI_ORGANIZATION", "OpenAI-Project": "OPENAI_PROJECT"}, UserAgent: "agent-ls/" + version}
	if got := s.modelConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("model config\n got %+v\nwant %+v", got, want)
	}
	if s, _, _ := parseTest(t, env, file, "-m", "flag-model", "-a", "never"); s.Model != "flag-model" || s.ApprovalPolicy != policy.Never || s.Sources["model"] != "--m" && s.Sources["model"] != "--model" {
		t.Errorf("flags over the environment and the file: %q %q from %q", s.Model, s.ApprovalPolicy, s.Sources["model"])
	}

	s, _, done = parseTest(t, map[string]string{model.EnvWireAPI: "grpc", envStreamIdleTimeout: "soon"}, "", "--wire-api", "responses", "--stream-idle-timeout", "90s")
	if done || s.Provider.WireAPI != model.WireResponses || s.modelConfig().IdleTimeout.Seconds() != 90 {
		t.Errorf("flags over bad variables: done %v, %+v", done, s.Provider)
	}
	if _, code, done := parseTest(t, map[string]string{model.EnvWireAPI: "grpc"}, ""); !done || code != 2 {
		t.Errorf("a bad variable in force: done %v, exit %d", done, code)
	}
	if _, code, done := parseTest(t, nil, "", "-c", "model_providers.openai.base_url=localhost:8080"); !done || code != 2 {
		t.Errorf("a base URL that is no URL: done %v, exit %d", done, code)
	}
	// A local server behind the built-in provider needs no key; another
	// provider's key variable is required, and named when it is unset.
	local, _, _ := parseTest(t, map[string]string{model.EnvBaseURL: "http://127.0.0.1:9/v1"}, "")
	if c := local.modelConfig(); c.APIKey != "" || c.EnvKey != "" {
		t.Errorf("openai at a local server: %+v", c)
	}
	az, _, _ := parseTest(t, nil, "model_provider = \"az\"\n[model_providers.az]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"AGENT_LS_TEST_UNSET_KEY\"\nrequest_max_retries = 0\nstream_max_retries = 7\n")
	if c := az.modelConfig(); c.EnvKey != "AGENT_LS_TEST_UNSET_KEY" || c.Provider != "az" || c.RequestMaxRetries != -1 || c.StreamMaxRetries != 7 {
		t.Errorf("provider az: %+v", c)
	}
	if s, _, _ := parseTest(t, nil, ""); s.Model != "gpt-5-codex" || s.ModelProvider != "openai" || s.LogLevel != "warn" || s.MaxRequests != agent.DefaultMaxRequests {
		t.Errorf("defaults: %+v", s)
	}
}

// TestRootBuildsManagersFromSettings: the manager's defaults are the
// settings, sessions of a provider share its client, and new settings
// reach the sessions through the editor's agent.
func TestRootBuildsManagersFromSettings(t *testing.T) {
	s, _, done := parseTest(t, nil, "", "--model", "llama3", "--wire-api", "chat", "--base-url", "http://127.0.0.1:9/v1",
		"-a", "untrusted", "--reasoning-effort", "low", "--max-requests", "9", "--network")
	if done {
		t.Fatal("parse failed")
	}
	r, err := newRoot(s, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := r.newManager(frontendParts{frontend: nullFrontend{}, cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Close()
	want := agent.Defaults{ModelName: "llama3", Provider: "openai", ApprovalPolicy: policy.Untrusted, SandboxMode: policy.WorkspaceWrite,
		ReasoningEffort: "low", ReasoningSummary: "auto", MaxRequests: 9, NetworkAccess: true, NetworkMode: policy.NetworkOn, ContextWarningPercent: 85, RateLimitWarningPercent: 10,
		ShellEnvironmentPolicy: policy.EnvPolicy{Inherit: policy.InheritAll}, OwnFiles: s.ownFiles(),
		LanguageQueryTimeout: 10 * time.Second}
	if got := mgr.Defaults(); !reflect.DeepEqual(got, want) {
		t.Errorf("manager defaults\n got %+v\nwant %+v", got, want)
	}
	a, _ := r.clientFor(agent.SessionInfo{Model: "llama3", Provider: "openai"})
	b, _ := r.clientFor(agent.SessionInfo{Model: "qwen3", Provider: "openai"})
	if a == nil || a != b {
		t.Errorf("sessions got clients %p and %p, want the one client", a, b)
	}
	if _, err := r.clientFor(agent.SessionInfo{Provider: "azure"}); err == nil {
		t.Error("a client for a provider that is not configured")
	}
}

// nullFrontend drops events and refuses approvals.
type nullFrontend struct{}

func (nullFrontend) Event(event.Event) {}
func (nullFrontend) RequestApproval(context.Context, *agent.ApprovalRequest) (string, error) {
	return agent.RejectOnce, nil
}
func (nullFrontend) ApplyChanges(context.Context, *workspace.ChangeSet) (bool, error) {
	return false, nil
}

func TestStreamIdleTimeoutFromFlagAndEnvironment(t *testing.T) {
	parse := func(env string, args ...string) Settings {
		t.Helper()
		t.Setenv(envStreamIdleTimeout, env)
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		var flags cmdFlags
		flags.register(fs)
		r, code, done := parseSettings(fs, &flags, args, "Usage: x", io.Discard, io.Discard)
		if done {
			t.Fatalf("parse %v with %q: exit %d", args, env, code)
		}
		s, _ := r.resolve("", nil)
		return s
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if s := parse("1500"); s.modelConfig().IdleTimeout != 1500*time.Millisecond {
		t.Errorf("from the environment: %v", s.modelConfig().IdleTimeout)
	}
	if s := parse("1500", "--stream-idle-timeout", "2m"); s.modelConfig().IdleTimeout != 2*time.Minute {
		t.Errorf("the flag over the environment: %v", s.modelConfig().IdleTimeout)
	}
	if s := parse(""); s.modelConfig().IdleTimeout != 0 {
		t.Errorf("default: %v", s.modelConfig().IdleTimeout)
	}
}

// TestNetworkFlag: --network alone is on, --network=off|ask|on names the
// mode, and it wins over the config file's network_access.
func TestNetworkFlag(t *testing.T) {
	file := "[sandbox_workspace_write]\nnetwork_access = true\n"
	for _, c := range []struct {
		args []string
		want policy.NetworkMode
	}{
		{nil, policy.NetworkOn},
		{[]string{"--network"}, policy.NetworkOn},
		{[]string{"--network=ask"}, policy.NetworkAsk},
		{[]string{"--network=off"}, policy.NetworkOff},
		{[]string{"--network=false"}, policy.NetworkOff},
	} {
		s, code, done := parseTest(t, nil, file, c.args...)
		if done || s.SandboxWorkspaceWrite.NetworkMode() != c.want {
			t.Errorf("%q: %q (exit %d)", c.args, s.SandboxWorkspaceWrite.NetworkMode(), code)
		}
	}
	if _, code, done := parseTest(t, nil, "", "--network=sometimes"); !done || code == 0 {
		t.Error("--network=sometimes accepted")
	}
}

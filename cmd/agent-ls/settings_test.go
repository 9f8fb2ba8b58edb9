package main

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/lsp"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// parseTest parses args as serve's settings under the environment env.
func parseTest(t *testing.T, env map[string]string, args ...string) (Settings, int, bool) {
	t.Helper()
	for _, k := range []string{envModel, model.EnvWireAPI, model.EnvBaseURL, model.EnvAPIKey, envStreamIdleTimeout} {
		t.Setenv(k, env[k])
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var flags layer
	flags.register(fs)
	return parseSettings(fs, &flags, args, "Usage: x", io.Discard)
}

// TestSettingsLayers: flags over the environment over the defaults, an
// editor's initializationOptions over all of them, and a bad variable
// that a flag overrides is no error.
func TestSettingsLayers(t *testing.T) {
	env := map[string]string{
		envModel: "env-model", model.EnvWireAPI: "Chat", model.EnvBaseURL: "http://127.0.0.1:9/v1", model.EnvAPIKey: "sk-env",
	}
	s, code, done := parseTest(t, env, "--model", "flag-model", "--sandbox", "read-only", "--network", "--writable-root", "out", "--log-level", "debug")
	if done {
		t.Fatalf("exit %d", code)
	}
	abs, _ := filepath.Abs("out")
	want := Settings{Model: "flag-model", WireAPI: model.WireChat, BaseURL: "http://127.0.0.1:9/v1", APIKey: "sk-env",
		SandboxMode: policy.ReadOnly, MaxRequests: agent.DefaultMaxRequests, Network: true, WritableRoots: []string{abs}, LogLevel: "debug"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("settings\n got %+v\nwant %+v", s, want)
	}
	if got := s.modelConfig(); !reflect.DeepEqual(got, model.Config{WireAPI: model.WireChat, BaseURL: "http://127.0.0.1:9/v1", APIKey: "sk-env"}) {
		t.Errorf("model config %+v", got)
	}

	ed := s.with(editorLayer(lsp.InitOptions{Model: "editor-model", ApprovalPolicy: policy.Never}))
	if ed.Model != "editor-model" || ed.ApprovalPolicy != policy.Never || ed.SandboxMode != policy.ReadOnly || s.Model != "flag-model" {
		t.Errorf("the editor's layer: %+v (over %+v)", ed, s)
	}

	s, _, done = parseTest(t, map[string]string{model.EnvWireAPI: "grpc", envStreamIdleTimeout: "soon"}, "--wire-api", "responses", "--stream-idle-timeout", "90s")
	if done || s.WireAPI != model.WireResponses || s.IdleTimeout.Seconds() != 90 {
		t.Errorf("flags over bad variables: done %v, %+v", done, s)
	}
	if _, code, done := parseTest(t, map[string]string{model.EnvWireAPI: "grpc"}); !done || code != 2 {
		t.Errorf("a bad variable in force: done %v, exit %d", done, code)
	}
	if s, _, _ := parseTest(t, nil); s.Model != "" || s.LogLevel != "warn" || s.MaxRequests != agent.DefaultMaxRequests {
		t.Errorf("defaults: %+v", s)
	}
}

// TestRootBuildsManagersFromSettings: the manager's defaults are the
// settings, every session gets the root's one client, and settings that
// describe no model server fail the manager's start.
func TestRootBuildsManagersFromSettings(t *testing.T) {
	s := Settings{Model: "llama3", WireAPI: model.WireChat, BaseURL: "http://127.0.0.1:9/v1", ApprovalPolicy: policy.Untrusted,
		ReasoningEffort: "low", MaxRequests: 9, Network: true}
	r, err := newRoot(s, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := r.newManager(s, frontendParts{frontend: nullFrontend{}, cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Close()
	want := agent.Defaults{ModelName: "llama3", ApprovalPolicy: policy.Untrusted, SandboxMode: policy.WorkspaceWrite,
		ReasoningEffort: "low", ReasoningSummary: "auto", MaxRequests: 9, NetworkAccess: true}
	if got := mgr.Defaults(); !reflect.DeepEqual(got, want) {
		t.Errorf("manager defaults\n got %+v\nwant %+v", got, want)
	}
	a, _ := r.clientFor(agent.SessionInfo{Model: "llama3"})
	b, _ := r.clientFor(agent.SessionInfo{Model: "qwen3"})
	if a == nil || a != b {
		t.Errorf("sessions got clients %p and %p, want the one client", a, b)
	}

	bad := Settings{BaseURL: "localhost:8080"}
	r, err = newRoot(bad, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.newManager(bad, frontendParts{frontend: nullFrontend{}}); err == nil || !strings.Contains(err.Error(), "bad base URL") {
		t.Errorf("a manager for a bad base URL: %v", err)
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

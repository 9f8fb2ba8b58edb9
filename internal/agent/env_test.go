package agent

import (
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// envProbe is a command that prints the variables the environment tests
// look at.
const envProbe = `{"command":["sh","-c","echo key=${OPENAI_API_KEY-unset} foo=${FOO-unset} region=${AWS_REGION-unset}"]}`

// runProbe runs envProbe through a whole turn of a session of mgr and
// returns the command's output as the model read it.
func runProbe(t *testing.T, mgr *Manager, m *scriptedModel, rec *recorder, req int) string {
	t.Helper()
	m.add(callTools(fcall("c1", "shell", envProbe)), say("msg_2", "ok"))
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "env"}))
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	return outputs(m.request(req))["c1"]
}

// TestCommandEnvironmentPolicy: by default a command the model runs does
// not see OPENAI_API_KEY; it sees what the policy sets; a policy changed
// through UpdateDefaults reaches the sessions started afterwards; a bad
// one is refused.
func TestCommandEnvironmentPolicy(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	t.Setenv("AWS_REGION", "eu-west-1")
	m := &scriptedModel{}
	rec := newRecorder()
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "test-model", ShellEnvironmentPolicy: policy.EnvPolicy{Set: map[string]string{"FOO": "1"}}}, Model: m, Frontend: rec, Tools: reg, Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)

	if out := runProbe(t, mgr, m, rec, 1); !strings.Contains(out, "key=unset foo=1 region=eu-west-1") {
		t.Errorf("default policy with set: %q", out)
	}

	err = mgr.UpdateDefaults(func(d *Defaults) {
		d.ShellEnvironmentPolicy = policy.EnvPolicy{Inherit: policy.InheritCore, Set: map[string]string{"FOO": "2"}}
	})
	if err != nil {
		t.Fatal(err)
	}
	if out := runProbe(t, mgr, m, rec, 3); !strings.Contains(out, "key=unset foo=2 region=unset") {
		t.Errorf("core policy: %q", out)
	}

	err = mgr.UpdateDefaults(func(d *Defaults) { d.ShellEnvironmentPolicy.Exclude = []string{"["} })
	if err == nil || !strings.Contains(err.Error(), `bad pattern "["`) {
		t.Errorf("a bad pattern: %v", err)
	}
	if got := mgr.Defaults().ShellEnvironmentPolicy; got.Inherit != policy.InheritCore || len(got.Exclude) != 0 {
		t.Errorf("a refused update changed the defaults: %+v", got)
	}
	if _, err := NewManager(Options{Defaults: Defaults{ShellEnvironmentPolicy: policy.EnvPolicy{Inherit: "some"}}, Model: m, Frontend: rec, Tools: reg}); err == nil {
		t.Error("NewManager accepted inherit = some")
	}
}

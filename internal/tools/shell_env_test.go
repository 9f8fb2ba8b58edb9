package tools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// envOf runs `env` under the session's environment policy and returns
// the variables it printed, sorted.
func envOf(t *testing.T, ap *fakeApprover, mode policy.SandboxMode, p policy.EnvPolicy) []string {
	t.Helper()
	env, _ := shellEnv(t, ap, mode)
	env.Exec.Env = p
	out, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"env"}})
	if err != nil || out.Failed {
		t.Fatalf("env: %v\n%s", err, out.Text)
	}
	_, printed, ok := strings.Cut(out.Text, "Output:\n")
	if !ok {
		t.Fatalf("no output in %q", out.Text)
	}
	vars := strings.Split(strings.TrimSpace(printed), "\n")
	if vars[0] == "" {
		vars = nil
	}
	slices.Sort(vars)
	return vars
}

// TestShellEnvPolicy: the session's policy reaches the command: core keeps
// PATH and HOME, drops the rest, exclude and set apply, the default
// excludes hold.
func TestShellEnvPolicy(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("AWS_REGION", "eu-west-1")
	t.Setenv("AGENT_LS_VISIBLE", "yes")
	t.Setenv("HOME", "/home/someone")
	t.Setenv("LC_TIME", "C")
	got := envOf(t, allowDirect(), sandbox.DangerFullAccess, policy.EnvPolicy{
		Inherit: policy.InheritCore, Exclude: []string{"lc_*"}, Set: map[string]string{"FOO": "1", "MY_TOKEN": "set-by-user"},
	})
	joined := strings.Join(got, "\n")
	for _, want := range []string{"FOO=1", "HOME=/home/someone", "MY_TOKEN=set-by-user", "PATH="} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s in\n%s", want, joined)
		}
	}
	for _, unwanted := range []string{"sk-secret", "AWS_REGION", "AGENT_LS_VISIBLE", "LC_TIME"} {
		if strings.Contains(joined, unwanted) {
			t.Errorf("%s leaked into\n%s", unwanted, joined)
		}
	}
}

// TestShellEnvInheritNone: with inherit = none the program is still found
// (on agent-ls's PATH) and the command gets only what set adds, plus, in
// the sandbox, the toolchain cache variables the sandbox points into its
// cache root.
func TestShellEnvInheritNone(t *testing.T) {
	none := policy.EnvPolicy{Inherit: policy.InheritNone, Set: map[string]string{"FOO": "1"}}
	if got := envOf(t, allowDirect(), sandbox.DangerFullAccess, none); !slices.Equal(got, []string{"FOO=1"}) {
		t.Errorf("unsandboxed: %q, want only FOO=1", got)
	}
	if c := sandbox.Probe(); c.LandlockABI == 0 {
		t.Skip("SKIPPING the sandboxed half: needs Landlock")
	}
	got := envOf(t, &fakeApprover{allow: true, sandbox: true}, policy.WorkspaceWrite, none)
	var names []string
	for _, kv := range got {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	if want := []string{"FOO", "GOCACHE", "PIP_CACHE_DIR", "XDG_CACHE_HOME", "npm_config_cache"}; !slices.Equal(names, want) {
		t.Errorf("sandboxed: %q, want the variables %q", got, want)
	}
}

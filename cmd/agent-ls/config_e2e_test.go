package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/proctest"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// writeConfig writes the user config file under a fresh XDG_CONFIG_HOME
// and returns the variable to run agent-ls with.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "agent-ls")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return "XDG_CONFIG_HOME=" + home
}

func writeProjectConfig(t *testing.T, root, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".agent-ls", "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

type sessionResult struct {
	SessionID      string `json:"sessionId"`
	Model          string `json:"model"`
	Provider       string `json:"provider"`
	ApprovalPolicy string `json:"approvalPolicy"`
	SandboxMode    string `json:"sandboxMode"`
}

func (s *session) newSession() sessionResult {
	s.t.Helper()
	var res sessionResult
	if err := s.ed.Request(s.ctx, "agent/newSession", map[string]any{}, &res); err != nil {
		s.t.Fatalf("agent/newSession: %v", err)
	}
	return res
}

// environmentOf is the last environment context of a model request.
func environmentOf(r *fakemodel.Request) string {
	env := ""
	for _, m := range strings.SplitAfter(string(r.Body), "<environment_context>") {
		if i := strings.Index(m, "</environment_context>"); i >= 0 {
			env = m[:i]
		}
	}
	return env
}

// TestServeFollowsTheConfiguration: the user's config chooses the
// provider (its URL and headers) and a profile; the project file narrows
// and what it may not set is shown to the user; the editor's settings and
// workspace/didChangeConfiguration go over both and reach the next turn
// of an existing session, in the request and the environment context.
func TestServeFollowsTheConfiguration(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("one"), fakemodel.Say("two"))
	t.Cleanup(m.Close)
	xdg := writeConfig(t, `model_provider = "proxy"
profile = "deep"

[model_providers.proxy]
name = "Company proxy"
base_url = "`+m.URL()+`"
env_key = "PROXY_KEY"
http_headers = { X-Team = "blue" }
query_params = { api-version = "2025-04-01" }

[tools]
view_image = false

[profiles.deep]
model = "gpt-5"
model_reasoning_effort = "high"
`)
	dir := t.TempDir()
	writeProjectConfig(t, dir, "sandbox_mode = \"read-only\"\nmodel_provider = \"openai\"\n")
	s := startOn(t, m, dir, []string{xdg, "PROXY_KEY=sk-proxy", "AGENT_LS_MODEL="}, editor.Config{},
		editor.Options{Events: true, InitializationOptions: map[string]any{"approvalPolicy": "on-failure"}})

	msg, err := s.ed.WaitMessage(s.ctx, func(p protocol.ShowMessageParams) bool { return strings.Contains(p.Message, "model_provider") })
	if err != nil {
		t.Fatalf("no message about the project's model_provider: %v (messages %+v)", err, s.ed.Messages())
	}
	if !strings.Contains(msg.Message, ".agent-ls/config.toml:2: model_provider: ignored") {
		t.Errorf("message: %q", msg.Message)
	}
	info := s.newSession()
	if info.Model != "gpt-5" || info.Provider != "proxy" || info.ApprovalPolicy != "on-failure" || info.SandboxMode != "read-only" {
		t.Errorf("agent/newSession: %+v", info)
	}
	turn := s.startTurn(map[string]any{"sessionId": info.SessionID, "prompt": "hi"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn: %+v", done)
	}

	err = s.ed.Notify(s.ctx, "workspace/didChangeConfiguration", map[string]any{
		"settings": map[string]any{"agentLs": map[string]any{"model": "gpt-5-mini", "approvalPolicy": "untrusted"}}})
	if err != nil {
		t.Fatal(err)
	}
	turn = s.startTurn(map[string]any{"sessionId": info.SessionID, "prompt": "again"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn after the change: %+v", done)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []struct{ model, policy, effort string }{{"gpt-5", "on-failure", "high"}, {"gpt-5-mini", "untrusted", "high"}} {
		r := reqs[i]
		if r.JSON["model"] != want.model || r.Header.Get("X-Team") != "blue" || r.Header.Get("Authorization") != "Bearer sk-proxy" {
			t.Errorf("request %d: model %v, X-Team %q, Authorization %q", i, r.JSON["model"], r.Header.Get("X-Team"), r.Header.Get("Authorization"))
		}
		if r.Query.Get("api-version") != "2025-04-01" {
			t.Errorf("request %d query: %v", i, r.Query)
		}
		if strings.Contains(string(r.Body), `"view_image"`) || !strings.Contains(string(r.Body), `"update_plan"`) {
			t.Errorf("request %d: view_image offered though turned off, or update_plan missing", i)
		}
		env := environmentOf(r)
		if !strings.Contains(env, "<approval_policy>"+want.policy+"<") || !strings.Contains(env, "<model_provider>proxy<") {
			t.Errorf("request %d environment: %s", i, env)
		}
		if !strings.Contains(string(r.Body), `"effort":"`+want.effort+`"`) {
			t.Errorf("request %d: no effort %s in %s", i, want.effort, r.Body)
		}
	}

	// A file that turns bad is reported; the last good one stays.
	if err := os.WriteFile(filepath.Join(strings.TrimPrefix(xdg, "XDG_CONFIG_HOME="), "agent-ls", "config.toml"), []byte("modle = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	after := s.newSession()
	if after.Provider != "proxy" || after.Model != "gpt-5-mini" {
		t.Errorf("session after the file broke: %+v", after)
	}
	if _, err := s.ed.WaitMessage(s.ctx, func(p protocol.ShowMessageParams) bool {
		return p.Type == protocol.MessageTypeError && strings.Contains(p.Message, "config.toml:1: modle: unknown key")
	}); err != nil {
		t.Errorf("no error message for the broken file: %v", err)
	}
}

// TestExecConfigErrors: exec names every problem of the config files on
// stderr and stops, before any model request, with status 2.
func TestExecConfigErrors(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("never"))
	t.Cleanup(m.Close)
	xdg := writeConfig(t, "model = 5\nsandbox_mode = \"open\"\n")
	cmd := exec.Command(binary, "exec", "hello")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), xdg, "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test")
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Fatalf("exit %d (%v):\n%s", code, err, out)
	}
	for _, want := range []string{"config.toml:1: model: want a string, not the integer 5", `config.toml:2: sandbox_mode: unknown value "open"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := len(m.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
}

// TestExecProviderErrors: a provider whose key variable is unset is
// named with the variable, and one that refuses connections with its URL.
func TestExecProviderErrors(t *testing.T) {
	closed := fakemodel.New()
	url := closed.URL()
	closed.Close()
	for name, c := range map[string]struct{ config, want string }{
		"unset key": {"model_provider = \"az\"\n[model_providers.az]\nbase_url = \"http://127.0.0.1:9/v1\"\nenv_key = \"AGENT_LS_TEST_AZ_KEY\"\n",
			`provider "az": the environment variable AGENT_LS_TEST_AZ_KEY is not set`},
		"refused": {"model_provider = \"local\"\n[model_providers.local]\nbase_url = \"" + url + "\"\nrequest_max_retries = 1\n",
			`provider "local": cannot connect to ` + url},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(binary, "exec", "hello")
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), writeConfig(t, c.config), "AGENT_LS_TEST_AZ_KEY=")
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), c.want) {
				t.Errorf("exit %d, want 1 and %q in:\n%s", code, c.want, out)
			}
		})
	}
}

// TestConfigCommand: agent-ls config shows each value with its source and
// never a secret; --check exits 1 listing every problem.
func TestConfigCommand(t *testing.T) {
	xdg := writeConfig(t, "model = \"o3\"\n[model_providers.openai]\nhttp_headers = { Authorization = \"Bearer sk-secret\" }\n")
	dir := t.TempDir()
	writeProjectConfig(t, dir, "approval_policy = \"untrusted\"\n[mcp_servers.x]\ncommand = \"x\"\n")
	cmd := exec.Command(binary, "config", "--cd", dir, "-c", "model_reasoning_effort=low")
	cmd.Env = append(os.Environ(), xdg, "OPENAI_API_KEY=sk-real-key", "AGENT_LS_MODEL=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("config: %v\n%s", err, out)
	}
	for _, want := range []string{
		"model = 'o3'", "config.toml:1)", "approval_policy = 'untrusted'", "# project config (",
		"model_reasoning_effort = 'low'", "# -c model_reasoning_effort=low", `Authorization = "(hidden)"`,
		"comes from $OPENAI_API_KEY, which is set",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "sk-") {
		t.Errorf("a secret was printed:\n%s", out)
	}

	xdg = writeConfig(t, "modle = \"o3\"\n[tools]\nweb_search = \"yes\"\n")
	cmd = exec.Command(binary, "config", "--check")
	cmd.Env = append(os.Environ(), xdg)
	out, _ = cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("--check exit %d:\n%s", code, out)
	}
	for _, want := range []string{"config.toml:1: modle: unknown key (did you mean model?)", `config.toml:3: tools.web_search: want true or false, not the string "yes"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--check output lacks %q:\n%s", want, out)
		}
	}
}

// TestConfigImportCodex: --import-codex writes the user config file, the
// user's alone, never over an existing one, and lists what it left out.
func TestConfigImportCodex(t *testing.T) {
	home := t.TempDir()
	codex, err := filepath.Abs("../../internal/config/testdata/codex")
	if err != nil {
		t.Fatal(err)
	}
	run := func() (string, int) {
		cmd := exec.Command(binary, "config", "--import-codex")
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+home, "CODEX_HOME="+codex)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := run()
	path := filepath.Join(home, "agent-ls", "config.toml")
	if code != 0 || !strings.Contains(out, "not carried over: tui.theme") || !strings.Contains(out, "wrote "+path) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("written file: %v %v", st.Mode(), err)
	}
	before, _ := os.ReadFile(path)
	if out, code = run(); code != 1 || !strings.Contains(out, "exists already") {
		t.Errorf("second import: exit %d:\n%s", code, out)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the second import changed the file")
	}
}

// TestExecHooksAndCommandEnvironment: the user's before_tool_use hook
// denies a command with its reason for the model, and commands get their
// environment by the config's policy: no API key, the variables it sets.
func TestExecHooksAndCommandEnvironment(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	hook := filepath.Join(t.TempDir(), "deny-rm")
	script := "#!/bin/sh\nif grep -q '\"rm\"' ; then echo 'no rm in this project' >&2; exit 2; fi\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m := fakemodel.New(
		fakemodel.Answer(shellCall("c1", "rm", "-rf", "src")),
		fakemodel.Answer(shellCall("c2", "sh", "-c", "echo key=${OPENAI_API_KEY-unset} team=$TEAM; touch "+ran)),
		fakemodel.Say("done"),
	)
	t.Cleanup(m.Close)
	xdg := writeConfig(t, `[[hooks]]
event = "before_tool_use"
tools = ["shell"]
command = ["`+hook+`"]

[shell_environment_policy]
set = { TEAM = "blue" }
`)
	cmd := exec.Command(binary, "exec", "clean up")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), xdg, "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=sk-must-not-leak")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("exec: %v\n%s", err, out)
	}
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests:\n%s", len(reqs), out)
	}
	if !strings.Contains(string(reqs[1].Body), "no rm in this project") {
		t.Errorf("the hook's reason did not reach the model: %s", reqs[1].Body)
	}
	last := string(reqs[2].Body)
	if !strings.Contains(last, "key=unset team=blue") || strings.Contains(last, "sk-must-not-leak") {
		t.Errorf("the command's environment: %s", last)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}

// TestHookDiesWithAgentLS: a hook still running when agent-ls is killed
// (SIGKILL: nothing of agent-ls runs to stop it) dies with it.
func TestHookDiesWithAgentLS(t *testing.T) {
	marker := proctest.Marker()
	m := fakemodel.New(fakemodel.Answer(shellCall("c1", "true")))
	t.Cleanup(m.Close)
	xdg := writeConfig(t, `[[hooks]]
event = "before_tool_use"
command = ["bash", "-c", "exec -a `+marker+` sleep 600"]
timeout_ms = 600000
`)
	cmd := exec.Command(binary, "exec", "go")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), xdg, "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(proctest.Find(marker)) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the hook never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	proctest.Gone(t, marker)
}

// TestExecSandboxSettingsFromConfig: [sandbox_workspace_write] reaches the
// sandbox: with exclude_slash_tmp a command cannot write /tmp.
func TestExecSandboxSettingsFromConfig(t *testing.T) {
	if why := sandbox.Probe().Unavailable(); why != "" {
		t.Skip("SKIPPING: no sandbox here: " + why)
	}
	target := filepath.Join("/tmp", proctest.Marker())
	t.Cleanup(func() { os.Remove(target) })
	for _, exclude := range []bool{false, true} {
		os.Remove(target)
		m := fakemodel.New(fakemodel.Answer(shellCall("c1", "sh", "-c", "echo x > "+target+" && echo WROTE || echo DENIED")), fakemodel.Say("done"))
		xdg := writeConfig(t, fmt.Sprintf("[sandbox_workspace_write]\nexclude_slash_tmp = %v\n", exclude))
		cmd := exec.Command(binary, "exec", "write")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), xdg, "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test")
		out, err := cmd.CombinedOutput()
		m.Close()
		if err != nil {
			t.Fatalf("exec: %v\n%s", err, out)
		}
		_, statErr := os.Stat(target)
		wrote := strings.Contains(string(m.Requests()[1].Body), `Output:\nWROTE`)
		if wrote == exclude || (statErr == nil) == exclude {
			t.Errorf("exclude_slash_tmp = %v: command wrote %v, file exists %v\n%s", exclude, wrote, statErr == nil, out)
		}
	}
}

// TestExecOpenAIOrganizationAndProject: the openai provider sends
// OpenAI-Organization and OpenAI-Project from OPENAI_ORGANIZATION and
// OPENAI_PROJECT when they are set, and neither header when they are not.
func TestExecOpenAIOrganizationAndProject(t *testing.T) {
	for name, env := range map[string][]string{
		"set":   {"OPENAI_ORGANIZATION=org-test", "OPENAI_PROJECT=proj_test"},
		"unset": {"OPENAI_ORGANIZATION=", "OPENAI_PROJECT="},
	} {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New(fakemodel.Say("hi"))
			t.Cleanup(m.Close)
			cmd := exec.Command(binary, "exec", "hello")
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir(),
				"OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=sk-test", "AGENT_LS_MODEL=gpt-5-codex")
			cmd.Env = append(cmd.Env, env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("exec: %v\n%s", err, out)
			}
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			h := reqs[0].Header
			if name == "set" && (h.Get("OpenAI-Organization") != "org-test" || h.Get("OpenAI-Project") != "proj_test") {
				t.Errorf("headers %v", h)
			}
			if _, sent := h["Openai-Organization"]; name == "unset" && sent {
				t.Errorf("OpenAI-Organization sent though OPENAI_ORGANIZATION is empty: %v", h)
			}
		})
	}
}

package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

func load(t *testing.T, in Inputs) (*Resolved, []Problem) {
	t.Helper()
	var l Loader
	return l.Load(in)
}

func problemStrings(ps []Problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

func override(t *testing.T, arg string) map[string]any {
	t.Helper()
	tree, err := Override(arg)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestPrecedence: each layer overrides the ones below it, key by key:
// defaults < user file < project file < profile < environment < editor
// settings < flags; the source of each value is the layer that set it.
func TestPrecedence(t *testing.T) {
	env := &Layer{Source: "environment"}
	editor := &Layer{Source: "editor settings"}
	flags := &Layer{Source: "flags"}
	in := Inputs{UserFile: "testdata/user.toml", ProjectRoot: "testdata/project", Env: env, Editor: editor, Flags: flags}

	type want struct {
		model, effort, provider string
		ap                      policy.ApprovalPolicy
		sm                      policy.SandboxMode
		modelSource             string
	}
	check := func(step string, w want) {
		t.Helper()
		r, _ := load(t, in)
		got := want{r.Model, r.ModelReasoningEffort, r.ModelProvider, r.ApprovalPolicy, r.SandboxMode, r.Sources["model"]}
		if !strings.HasPrefix(got.modelSource, w.modelSource) {
			t.Errorf("%s: model from %q, want %q", step, got.modelSource, w.modelSource)
		}
		got.modelSource = w.modelSource
		if got != w {
			t.Errorf("%s:\n got %+v\nwant %+v", step, got, w)
		}
	}
	// The profile "fast" (chosen in the user file) is over the project
	// file's model; the project's stricter policies hold.
	check("files and profile", want{"gpt-5-mini", "low", "azure", policy.OnRequest, policy.ReadOnly, "profile fast (testdata/user.toml:17)"})

	in.ProjectRoot = ""
	env.Set("profile", "local", "AGENT_LS_PROFILE")
	check("environment chooses a profile", want{"llama3", "medium", "ollama", policy.OnRequest, policy.WorkspaceWrite, "profile local"})
	env.Set("model", "env-model", "AGENT_LS_MODEL")
	check("environment", want{"env-model", "medium", "ollama", policy.OnRequest, policy.WorkspaceWrite, "AGENT_LS_MODEL"})
	editor.Set("model", "editor-model", "editor settings model")
	editor.Set("approval_policy", "untrusted", "editor settings approvalPolicy")
	check("editor", want{"editor-model", "medium", "ollama", policy.Untrusted, policy.WorkspaceWrite, "editor settings model"})
	flags.Merge(override(t, "model=flag-model"), "-c model=flag-model")
	flags.Set("profile", "fast", "--profile")
	check("flags", want{"flag-model", "low", "azure", policy.Untrusted, policy.WorkspaceWrite, "-c model=flag-model"})
}

// TestProviderOverrides: --base-url and AGENT_LS_WIRE_API change the
// provider in use, whichever it is; OPENAI_BASE_URL only the built-in one.
func TestProviderOverrides(t *testing.T) {
	env := &Layer{Source: "environment"}
	env.Set("model_providers.openai.base_url", "http://127.0.0.1:1/v1", "OPENAI_BASE_URL")
	env.SetProvider("wire_api", "chat", "AGENT_LS_WIRE_API")
	flags := &Layer{Source: "flags"}
	flags.SetProvider("base_url", "http://127.0.0.1:2/v1", "--base-url")
	r, probs := load(t, Inputs{UserFile: "testdata/user.toml", Env: env, Flags: flags})
	if len(probs) > 0 {
		t.Fatal(problemStrings(probs))
	}
	if r.ModelProvider != "azure" || r.Provider.BaseURL != "http://127.0.0.1:2/v1" || r.Provider.WireAPI != "chat" ||
		r.Provider.EnvKey != "AZURE_OPENAI_API_KEY" || r.Provider.QueryParams["api-version"] != "2025-04-01-preview" {
		t.Errorf("provider in use: %+v", r.Provider)
	}
	if got := r.ModelProviders["openai"].BaseURL; got != "http://127.0.0.1:1/v1" {
		t.Errorf("openai base_url %q", got)
	}
	if r.Sources["model_providers.azure.base_url"] != "--base-url" || r.Sources["model_providers.azure.wire_api"] != "AGENT_LS_WIRE_API" {
		t.Errorf("sources: %v", r.Sources)
	}
}

// TestStrictErrors: every unknown key, wrong type and bad value of a
// file is reported with its file, line and key, and the file is not used.
func TestStrictErrors(t *testing.T) {
	_, probs := load(t, Inputs{UserFile: "testdata/bad.toml"})
	want := []string{
		"testdata/bad.toml:3: modle_provider: unknown key (did you mean model_provider?)",
		`testdata/bad.toml:4: approval_policy: unknown value "sometimes" (use untrusted, on-failure, on-request or never)`,
		"testdata/bad.toml:7: model_providers.azure.base_url: want a string, not the integer 42",
		`testdata/bad.toml:8: model_providers.azure.wire_api: unknown value "grpc" (use responses or chat)`,
		"testdata/bad.toml:13: hooks[0].command: is missing or empty: give the program and its arguments as an array",
		`testdata/bad.toml:16: hooks[1].event: unknown value "after" (use before_tool_use or after_tool_use)`,
		"testdata/bad.toml: not used until it is fixed",
	}
	if got := problemStrings(probs); !slices.Equal(got, want) {
		t.Errorf("problems\n got %q\nwant %q", got, want)
	}

	_, probs = load(t, Inputs{UserFile: writeFile(t, "model = \"x\"\n[tools\nweb_search = true\n")})
	if len(probs) != 2 || probs[0].Line != 2 || !strings.Contains(probs[0].Message, "column") {
		t.Errorf("syntax error: %q", problemStrings(probs))
	}
}

// TestLastGoodFile: a file that turns bad keeps its last good version in
// force; one that is deleted stops counting.
func TestLastGoodFile(t *testing.T) {
	path := writeFile(t, "model = \"good\"\n")
	var l Loader
	r, probs := l.Load(Inputs{UserFile: path})
	if r.Model != "good" || len(probs) > 0 {
		t.Fatalf("good file: %q %q", r.Model, problemStrings(probs))
	}
	if err := os.WriteFile(path, []byte("model = \"bad\"\nmodle = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, probs = l.Load(Inputs{UserFile: path})
	if r.Model != "good" || len(probs) != 2 || !strings.Contains(probs[1].Message, "last good version") {
		t.Errorf("bad file: %q %q", r.Model, problemStrings(probs))
	}
	os.Remove(path)
	if r, probs = l.Load(Inputs{UserFile: path}); r.Model != "gpt-5-codex" || len(probs) > 0 {
		t.Errorf("deleted file: %q %q", r.Model, problemStrings(probs))
	}
}

// TestProjectFileOnlyNarrows: a project file chooses the model and turns
// tools off and makes policies stricter; everything else it says is
// ignored with a message naming the key.
func TestProjectFileOnlyNarrows(t *testing.T) {
	r, probs := load(t, Inputs{UserFile: writeFile(t, "approval_policy = \"untrusted\"\n"), ProjectRoot: "testdata/project"})
	var ignored []string
	for _, p := range probs {
		if !p.Ignored {
			t.Errorf("not an ignored key: %s", p)
		}
		ignored = append(ignored, p.Key)
	}
	if want := []string{"approval_policy", "hooks", "model_provider", "model_providers", "tools.web_search"}; !slices.Equal(ignored, want) {
		t.Errorf("ignored %q, want %q", ignored, want)
	}
	if !strings.Contains(probs[0].String(), "config.toml:3: approval_policy: ignored: a project file may only make the approval policy stricter than \"untrusted\"") {
		t.Errorf("message: %s", probs[0])
	}
	if r.Model != "o3" || r.ApprovalPolicy != policy.Untrusted || r.SandboxMode != policy.ReadOnly || r.ModelProvider != "openai" ||
		r.Tools.ViewImage || r.Tools.WebSearch || len(r.Hooks) > 0 || r.ModelProviders["evil"].BaseURL != "" {
		t.Errorf("resolved: %+v", r.Config)
	}
	// Under a user's never, the project's never is no change, allowed.
	r, _ = load(t, Inputs{UserFile: writeFile(t, "approval_policy = \"never\"\n"), ProjectRoot: "testdata/project"})
	if r.ApprovalPolicy != policy.Never {
		t.Errorf("never under never: %s", r.ApprovalPolicy)
	}
}

// TestUnknownProfileAndProvider: naming what does not exist is a problem
// that says what does.
func TestUnknownProfileAndProvider(t *testing.T) {
	flags := &Layer{Source: "flags"}
	flags.Set("profile", "slow", "--profile")
	flags.Set("model_provider", "nowhere", "-c model_provider=nowhere")
	r, probs := load(t, Inputs{UserFile: "testdata/user.toml", Flags: flags})
	got := problemStrings(probs)
	want := []string{
		`--profile: profile: no profile "slow" (the user config defines fast or local as [profiles.NAME])`,
		`-c model_provider=nowhere: model_provider: no provider "nowhere": define [model_providers.nowhere] in the user config, or use one of azure, ollama or openai`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems\n got %q\nwant %q", got, want)
	}
	if r.Profile != "" || r.Model != "gpt-5" {
		t.Errorf("resolved with a missing profile: %q %q", r.Profile, r.Model)
	}
}

func TestOverride(t *testing.T) {
	for arg, want := range map[string]map[string]any{
		"model=o3":   {"model": "o3"},
		`model="o3"`: {"model": "o3"},
		"sandbox_workspace_write.network_access=true":       {"sandbox_workspace_write": map[string]any{"network_access": true}},
		`model_providers.az.query_params={api-version="1"}`: {"model_providers": map[string]any{"az": map[string]any{"query_params": map[string]any{"api-version": "1"}}}},
	} {
		if got := override(t, arg); !reflect.DeepEqual(got, want) {
			t.Errorf("-c %s: %v, want %v", arg, got, want)
		}
	}
	for arg, want := range map[string]string{
		"model":                   "want key=value",
		"modle=o3":                "modle: unknown key (did you mean model?)",
		"approval_policy=maybe":   `unknown value "maybe"`,
		"project_doc_max_bytes=x": "want an integer",
	} {
		if _, err := Override(arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-c %s: %v, want %q", arg, err, want)
		}
	}
}

func TestEditorLayer(t *testing.T) {
	l, probs := EditorLayer(json.RawMessage(`{"model":"m","approvalPolicy":"sometimes","sandboxMode":"read-only","baseUrl":"http://x","saveAgentEdits":false,"profile":null,"modelVerbosity":""}`), "editor settings")
	if got := problemStrings(probs); len(got) != 1 || !strings.Contains(got[0], `approvalPolicy: unknown value "sometimes"`) {
		t.Errorf("problems %q", got)
	}
	if want := map[string]any{"model": "m", "sandbox_mode": "read-only"}; !reflect.DeepEqual(l.Tree, want) {
		t.Errorf("tree %v, want %v", l.Tree, want)
	}
}

// TestPrintHidesSecrets: the effective configuration names each value's
// source and hides header values and the environment given to servers.
func TestPrintHidesSecrets(t *testing.T) {
	path := writeFile(t, `model = "gpt-5"
[model_providers.openai]
http_headers = { Authorization = "Bearer sk-secret" }
[mcp_servers.db]
command = "db-mcp"
env = { DB_PASSWORD = "hunter2" }
[shell_environment_policy]
set = { TOKEN = "tok-secret" }
`)
	r, probs := load(t, Inputs{UserFile: path})
	if len(probs) > 0 {
		t.Fatal(problemStrings(probs))
	}
	var b strings.Builder
	if err := r.Print(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, secret := range []string{"sk-secret", "hunter2", "tok-secret"} {
		if strings.Contains(out, secret) {
			t.Errorf("printed %q:\n%s", secret, out)
		}
	}
	for _, line := range []string{
		"model = 'gpt-5'", "# user config (" + path + ":1)",
		"model_providers.openai.http_headers.Authorization = \"(hidden)\"",
		"mcp_servers.db.command = 'db-mcp'", "sandbox_mode = 'workspace-write'",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("missing %q in:\n%s", line, out)
		}
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestChecksThatMirrorTheRunners: what the hook runner and the command
// environment would refuse is refused here first, with its line.
func TestChecksThatMirrorTheRunners(t *testing.T) {
	_, probs := load(t, Inputs{UserFile: writeFile(t, `[[hooks]]
event = "after_tool_use"
command = ["./scripts/check"]
tools = ["["]

[shell_environment_policy]
exclude = ["["]
`)})
	got := problemStrings(probs)
	for _, want := range []string{
		`:3: hooks[0].command: "./scripts/check" is a relative path`,
		`:4: hooks[0].tools[0]: bad tool pattern "["`,
		`:6: shell_environment_policy: shell environment exclude: bad pattern "["`,
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no problem %q in %q", want, got)
		}
	}
}

// TestMCPServers: every key of a server is read, approval takes ask or
// auto, transport streamable-http or sse (of a url server only), and
// bad values are refused with their line.
func TestMCPServers(t *testing.T) {
	r, probs := load(t, Inputs{UserFile: writeFile(t, `[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]
env = { LOG_LEVEL = "debug" }
cwd = "/srv"
enabled = true
startup_timeout_sec = 20
tool_timeout_sec = 2.5
enabled_tools = ["read_text_file"]
disabled_tools = ["write_file"]
approval = "auto"
log_level = "debug"

[mcp_servers.docs]
url = "https://mcp.example/mcp"
http_headers = { X-Client = "agent-ls" }
bearer_token_env_var = "DOCS_TOKEN"

[mcp_servers.old]
url = "https://old.example/sse"
transport = "sse"
oauth_client_id = "agent-ls-at-old"
oauth_client_secret_env_var = "OLD_SECRET"
`)})
	if len(probs) > 0 {
		t.Fatal(problemStrings(probs))
	}
	fs, docs := r.MCPServers["fs"], r.MCPServers["docs"]
	if fs.Command != "npx" || len(fs.Args) != 3 || fs.Env["LOG_LEVEL"] != "debug" || fs.Cwd != "/srv" || !*fs.Enabled ||
		*fs.StartupTimeoutSec != 20 || *fs.ToolTimeoutSec != 2.5 || fs.EnabledTools[0] != "read_text_file" ||
		fs.DisabledTools[0] != "write_file" || fs.Approval != MCPApprovalAuto || fs.LogLevel != "debug" {
		t.Errorf("fs: %+v", fs)
	}
	if docs.URL != "https://mcp.example/mcp" || docs.HTTPHeaders["X-Client"] != "agent-ls" || docs.BearerTokenEnvVar != "DOCS_TOKEN" || docs.Approval != "" {
		t.Errorf("docs: %+v", docs)
	}
	if old := r.MCPServers["old"]; old.Transport != MCPTransportSSE || docs.Transport != "" || old.OAuthClientID != "agent-ls-at-old" || old.OAuthClientSecretEnvVar != "OLD_SECRET" {
		t.Errorf("old: %+v", old)
	}

	_, probs = load(t, Inputs{UserFile: writeFile(t, `[mcp_servers.x]
command = "x"
approval = "always"
tool_timeout_sec = 0
startup_timeout_sec = 1e9
transport = "sse"

oauth_client_id = "id"

[mcp_servers.y]
url = "https://y.example/mcp"
transport = "websocket"
log_level = "verbose"
oauth_client_secret_env_var = "Y_SECRET"
`)})
	got := problemStrings(probs)
	for _, want := range []string{
		`:3: mcp_servers.x.approval: unknown value "always" (use ask or auto)`,
		`:4: mcp_servers.x.tool_timeout_sec: must be more than 0`,
		`:5: mcp_servers.x.startup_timeout_sec: must be more than 0`,
		`:6: mcp_servers.x.transport: is for a url server`,
		`:8: mcp_servers.x.oauth_client_id: is for a url server; a command server needs no login`,
		`:12: mcp_servers.y.transport: unknown value "websocket" (use streamable-http or sse)`,
		`:13: mcp_servers.y.log_level: unknown value "verbose" (use debug, info, notice, warning, error, critical, alert or emergency)`,
		`:14: mcp_servers.y.oauth_client_secret_env_var: needs oauth_client_id`,
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no problem %q in %q", want, got)
		}
	}
}

// TestProjectFileCannotSetLimits: a repository cannot choose limits,
// context sizes or timeouts, not even lower ones; its unknown keys are
// warnings, where the user's own are errors.
func TestProjectFileCannotSetLimits(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	project := `model = "o3"
project_doc_max_bytes = 1
model_context_window = 1000000000
model_auto_compact_token_limit = 10
some_future_key = true

[model_providers.openai]
stream_idle_timeout_ms = 1

[mcp_servers.db]
command = "db-mcp"
tool_timeout_sec = 0.001
`
	if err := os.WriteFile(filepath.Join(root, ProjectFile), []byte(project), 0o600); err != nil {
		t.Fatal(err)
	}
	user := writeFile(t, "project_doc_max_bytes = 4096\nmodel_context_window = 200000\nmodel_auto_compact_token_limit = 150000\n")
	r, probs := load(t, Inputs{UserFile: user, ProjectRoot: root})
	var ignored []string
	for _, p := range probs {
		if !p.Ignored {
			t.Errorf("an error, not a warning: %s", p)
		}
		ignored = append(ignored, p.Key)
	}
	if want := []string{"mcp_servers", "model_auto_compact_token_limit", "model_context_window", "model_providers", "project_doc_max_bytes", "some_future_key"}; !slices.Equal(slices.Sorted(slices.Values(ignored)), want) {
		t.Errorf("ignored %q, want %q", ignored, want)
	}
	for _, p := range probs {
		if p.Key == "project_doc_max_bytes" && p.String() != filepath.Join(root, ProjectFile)+":2: project_doc_max_bytes: ignored: only the user's own config may set limits and timeouts" {
			t.Errorf("message: %s", p)
		}
		if p.Key == "some_future_key" && !strings.Contains(p.String(), ":5: some_future_key: ignored: unknown key") {
			t.Errorf("message: %s", p)
		}
	}
	if r.Model != "o3" || r.ProjectDocMaxBytes != 4096 || r.ModelContextWindow != 200000 || r.ModelAutoCompactTokenLimit != 150000 ||
		r.Provider.StreamIdleTimeoutMs != nil || len(r.MCPServers) != 0 {
		t.Errorf("resolved: %+v", r.Config)
	}

	// The user's own file stays strict: an unknown key there is an error
	// and the file is not used.
	_, probs = load(t, Inputs{UserFile: writeFile(t, "some_future_key = true\nmodel = \"o3\"\n")})
	if len(probs) == 0 || probs[0].Ignored || !strings.Contains(probs[0].String(), "some_future_key: unknown key") {
		t.Errorf("user file problems: %q", problemStrings(probs))
	}
}

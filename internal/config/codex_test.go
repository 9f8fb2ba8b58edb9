package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestImportCodex: a Codex config that uses every key agent-ls supports
// becomes an agent-ls file that resolves to the same settings; every key
// that is not carried over is reported.
func TestImportCodex(t *testing.T) {
	imp, err := ImportCodex("testdata/codex")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"mcp_servers.github.env_vars: agent-ls has no such setting",
		"model_providers.azure.env_key_instructions: agent-ls has no such setting",
		"model_providers.azure.supports_websockets: agent-ls has no such setting",
		"profiles.review.chatgpt_base_url: agent-ls has no such setting",
		"shell_environment_policy.experimental_use_profile: agent-ls has no such setting",
		"tui.theme: agent-ls has no such setting",
	}
	if !slices.Equal(imp.Skipped, want) {
		t.Errorf("skipped\n got %q\nwant %q", imp.Skipped, want)
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, imp.TOML, 0o600); err != nil {
		t.Fatal(err)
	}
	r, probs := load(t, Inputs{UserFile: path})
	if len(probs) > 0 {
		t.Fatalf("the imported file has problems: %q\n%s", problemStrings(probs), imp.TOML)
	}
	// The profile "review" is chosen by the file, as in Codex.
	if r.Model != "o3" || r.ApprovalPolicy != policy.Untrusted || r.SandboxMode != policy.ReadOnly || r.ModelReasoningEffort != "medium" ||
		r.ModelReasoningSummary != "detailed" || r.ModelVerbosity != "low" || r.ProjectDocMaxBytes != 65536 || r.ModelContextWindow != 400000 || r.ModelAutoCompactTokenLimit != 350000 || r.Tools.WebSearch || r.Tools.ViewImage {
		t.Errorf("settings: %+v", r.Config)
	}
	if !slices.Equal(r.Notify, []string{"notify-send", "codex"}) || !r.TUI.Notifications || r.TUI.NotificationMethod != "osc9" {
		t.Errorf("notify %q, tui %+v", r.Notify, r.TUI)
	}
	sw := r.SandboxWorkspaceWrite
	if !slices.Equal(sw.WritableRoots, []string{"/srv/cache"}) || sw.NetworkMode() != policy.NetworkOn || !sw.ExcludeTmpdirEnvVar || sw.ExcludeSlashTmp {
		t.Errorf("sandbox_workspace_write: %+v", sw)
	}
	ep := r.ShellEnvironmentPolicy
	if ep.Inherit != "core" || !slices.Equal(ep.Exclude, []string{"AWS_*"}) || len(ep.IncludeOnly) != 3 || ep.Set["CI"] != "1" {
		t.Errorf("shell_environment_policy: %+v", ep)
	}
	p := r.Provider
	if r.ModelProvider != "azure" || p.BaseURL != "https://example.openai.azure.com/openai" || p.EnvKey != "AZURE_OPENAI_API_KEY" ||
		p.QueryParams["api-version"] != "2025-04-01-preview" || p.HTTPHeaders["X-Team"] != "blue" || p.EnvHTTPHeaders["X-Org"] != "ORG_ID" ||
		*p.RequestMaxRetries != 4 || *p.StreamMaxRetries != 10 || *p.StreamIdleTimeoutMs != 300000 || p.WireAPI != "responses" {
		t.Errorf("provider: %+v", p)
	}
	if got := r.ModelProviders["openai"].BaseURL; got != "https://proxy.example/v1" {
		t.Errorf("openai_base_url: %q", got)
	}
	gh, docs := r.MCPServers["github"], r.MCPServers["docs"]
	if gh.Command != "github-mcp" || gh.Cwd != "/srv" || gh.Env["GITHUB_TOKEN"] != "ghp_x" || *gh.StartupTimeoutSec != 20 || *gh.ToolTimeoutSec != 90.5 ||
		!slices.Equal(gh.EnabledTools, []string{"search"}) || !slices.Equal(gh.DisabledTools, []string{"delete_repo"}) || !*gh.Enabled {
		t.Errorf("mcp github: %+v", gh)
	}
	if docs.URL != "https://mcp.example/mcp" || docs.BearerTokenEnvVar != "DOCS_TOKEN" || *docs.Enabled || docs.HTTPHeaders["X-Client"] != "agent-ls" {
		t.Errorf("mcp docs: %+v", docs)
	}
	// The X.config.toml profile file is a profile too.
	flags := &Layer{Source: "flags"}
	flags.Set("profile", "fast", "--profile")
	r, probs = load(t, Inputs{UserFile: path, Flags: flags})
	if len(probs) > 0 || r.Model != "gpt-5-mini" || r.ModelReasoningEffort != "minimal" || r.SandboxWorkspaceWrite.NetworkMode() != policy.NetworkOff {
		t.Errorf("profile fast: %+v %q", r.Config, problemStrings(probs))
	}
	if !strings.HasPrefix(string(imp.TOML), "# agent-ls configuration, carried over from Codex's") || len(imp.Files) != 2 {
		t.Errorf("header or files: %q\n%s", imp.Files, imp.TOML)
	}
}

func TestImportCodexErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("model = \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ImportCodex(dir); err == nil || !strings.Contains(err.Error(), "config.toml:1") {
		t.Errorf("syntax error: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte("approval_policy = \"sometimes\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ImportCodex(dir); err == nil || !strings.Contains(err.Error(), `approval_policy: unknown value "sometimes"`) {
		t.Errorf("bad value: %v", err)
	}
}

// Package config reads agent-ls's configuration: the user's config.toml,
// the narrowing-only project file .agent-ls/config.toml, profiles, and the
// layers above them (environment, the editor's settings, command-line
// flags and -c overrides), and resolves them into one Config with the
// source of every value.
//
// Keys are Codex's where Codex has them, so a user can carry settings over.
// Every layer is a TOML tree; layers are merged key by key (tables merge,
// any other value, arrays included, replaces the one below), and the
// result is decoded into Config. Files are checked strictly: an unknown key
// or a value of the wrong type is a Problem naming the file, the line and
// the key, and a file with an error is not used (the Loader keeps the last
// good version of it). A project file is the exception for unknown keys:
// each is left out with a warning (it can only have narrowed).
package config

import (
	"github.com/agent-ls/agent-ls/internal/policy"
)

// Config is the effective configuration.
type Config struct {
	Settings
	ModelProviders map[string]Provider  `toml:"model_providers"`
	MCPServers     map[string]MCPServer `toml:"mcp_servers"`
	Hooks          []Hook               `toml:"hooks"`
	Profile        string               `toml:"profile"`
	Profiles       map[string]Settings  `toml:"profiles"`
	// AllowHomeWorkspace lets a workspace at the home folder (or above
	// it) be written by sandboxed commands; without it such a session's
	// sandbox is read-only. Only the user's own config sets it: a
	// project file cannot, and neither can the editor's settings.
	AllowHomeWorkspace bool `toml:"allow_home_workspace"`
	// ContextWarningPercent: before a turn whose history and prompt fill
	// more than this share of the context window, the user is asked
	// whether to compact first; RateLimitWarningPercent: likewise when
	// the provider said less than this share of a rate limit is left.
	// 0 turns a warning off. Only the user's own config sets them.
	ContextWarningPercent   int64 `toml:"context_warning_percent"`
	RateLimitWarningPercent int64 `toml:"rate_limit_warning_percent"`
	// Notify is a program (argv) run, outside the sandbox and without
	// waiting for it, with one more argument: a JSON object saying that a
	// turn ended or waits on the user (Codex's key and payload). Like
	// hooks, only the user's own config sets it.
	Notify []string `toml:"notify"`
	// CheckpointMaxBytes caps the file contents a session keeps for
	// rewinds (default 1 GiB); the oldest turns' go first. Only the
	// user's own config sets it.
	CheckpointMaxBytes int64 `toml:"checkpoint_max_bytes"`
	// TUI tunes agent-ls exec on a terminal.
	TUI TUI `toml:"tui"`
	// LanguageQueryTimeoutMs bounds one question to the editor's
	// language servers (the lsp_* tools), in milliseconds. Like every
	// limit, only the user's own config sets it.
	LanguageQueryTimeoutMs int64 `toml:"language_query_timeout_ms"`
}

// TUI is the [tui] table: what agent-ls exec does on a terminal.
type TUI struct {
	// Notifications rings the terminal when a turn ends or waits on the
	// user, if stderr is a terminal.
	Notifications bool `toml:"notifications"`
	// NotificationMethod is how: "auto" (an OSC 9 desktop notification on
	// terminals known to show one, the bell elsewhere), "osc9" or "bel".
	NotificationMethod string `toml:"notification_method"`
}

// Settings are the keys a profile may set; at the top level they are the
// defaults the profile goes over.
type Settings struct {
	Model                 string `toml:"model"`
	ModelProvider         string `toml:"model_provider"`
	ModelReasoningEffort  string `toml:"model_reasoning_effort"`
	ModelReasoningSummary string `toml:"model_reasoning_summary"`
	ModelVerbosity        string `toml:"model_verbosity"`
	// ModelContextWindow is the model's context window in tokens, for a
	// model agent-ls does not know; ModelAutoCompactTokenLimit the
	// context size at which older history is summarised (default 90% of
	// the window).
	ModelContextWindow         int64                 `toml:"model_context_window"`
	ModelAutoCompactTokenLimit int64                 `toml:"model_auto_compact_token_limit"`
	ApprovalPolicy             policy.ApprovalPolicy `toml:"approval_policy"`
	SandboxMode                policy.SandboxMode    `toml:"sandbox_mode"`
	// ProjectDocMaxBytes is the AGENTS.md budget; 0 turns AGENTS.md off.
	ProjectDocMaxBytes     int64                  `toml:"project_doc_max_bytes"`
	SandboxWorkspaceWrite  SandboxWorkspaceWrite  `toml:"sandbox_workspace_write"`
	ShellEnvironmentPolicy ShellEnvironmentPolicy `toml:"shell_environment_policy"`
	Tools                  Tools                  `toml:"tools"`
	// UseUnifiedExec offers the model exec_command and write_stdin
	// (commands that run on, with a terminal) instead of shell; unset,
	// the model family decides (Codex's models get them).
	UseUnifiedExec *bool `toml:"use_unified_exec"`
}

// SandboxWorkspaceWrite tunes the workspace-write sandbox.
type SandboxWorkspaceWrite struct {
	WritableRoots []string `toml:"writable_roots"`
	// Network is "off", "ask" (the hosts the user allows one by one,
	// through agent-ls's proxy) or "on"; unset, NetworkAccess (the old
	// boolean) decides, and without either it is "ask".
	Network       policy.NetworkMode `toml:"network"`
	NetworkAccess *bool              `toml:"network_access"`
	// AllowedDomains pass the proxy unasked ("example.com",
	// "*.example.com", "host:port"; no port means 80 and 443);
	// DeniedDomains never pass. The user's own (a project file may only
	// add denials).
	AllowedDomains      []string `toml:"allowed_domains"`
	DeniedDomains       []string `toml:"denied_domains"`
	ExcludeTmpdirEnvVar bool     `toml:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     bool     `toml:"exclude_slash_tmp"`
	// CacheRoot holds the toolchain caches of sandboxed commands.
	CacheRoot string `toml:"cache_root"`
	// AllowProjectSockets lets sandboxed commands with the network off
	// connect to any Unix socket below the project root, also one made
	// outside the sandbox (a database the user runs there); by default
	// only sockets the session's sandboxed commands bound. agent-ls's own
	// key; like all of [sandbox_workspace_write], the user's alone (a
	// project file cannot set it).
	AllowProjectSockets bool `toml:"allow_project_sockets"`
}

// NetworkMode is the network setting of workspace-write commands:
// network wins over network_access, and neither means "ask".
func (s SandboxWorkspaceWrite) NetworkMode() policy.NetworkMode {
	switch {
	case s.Network != "":
		return s.Network
	case s.NetworkAccess == nil:
		return policy.DefaultNetworkMode
	case *s.NetworkAccess:
		return policy.NetworkOn
	}
	return policy.NetworkOff
}

// ShellEnvironmentPolicy decides which environment variables commands get.
type ShellEnvironmentPolicy struct {
	// Inherit is all, core or none.
	Inherit               string            `toml:"inherit"`
	IgnoreDefaultExcludes bool              `toml:"ignore_default_excludes"`
	Exclude               []string          `toml:"exclude"`
	IncludeOnly           []string          `toml:"include_only"`
	Set                   map[string]string `toml:"set"`
}

// Policy is the policy commands get their environment by.
func (p ShellEnvironmentPolicy) Policy() policy.EnvPolicy {
	return policy.EnvPolicy{Inherit: policy.EnvInherit(p.Inherit), IgnoreDefaultExcludes: p.IgnoreDefaultExcludes,
		Exclude: p.Exclude, IncludeOnly: p.IncludeOnly, Set: p.Set}
}

// Tools turns built-in tools on or off.
type Tools struct {
	WebSearch  bool `toml:"web_search"`
	ViewImage  bool `toml:"view_image"`
	UpdatePlan bool `toml:"update_plan"`
}

// Provider is a model server: where requests go, how, and with which key.
type Provider struct {
	Name    string `toml:"name"`
	BaseURL string `toml:"base_url"`
	// EnvKey names the environment variable holding the API key.
	EnvKey string `toml:"env_key"`
	// WireAPI is responses or chat.
	WireAPI     string            `toml:"wire_api"`
	QueryParams map[string]string `toml:"query_params"`
	HTTPHeaders map[string]string `toml:"http_headers"`
	// EnvHTTPHeaders maps a header to the environment variable holding
	// its value.
	EnvHTTPHeaders      map[string]string `toml:"env_http_headers"`
	RequestMaxRetries   *int64            `toml:"request_max_retries"`
	StreamMaxRetries    *int64            `toml:"stream_max_retries"`
	StreamIdleTimeoutMs *int64            `toml:"stream_idle_timeout_ms"`
}

// MCPServer is an MCP server whose tools the agent offers the model:
// either a command (stdio) or a URL (streamable HTTP, or the older
// HTTP+SSE transport).
type MCPServer struct {
	Command           string            `toml:"command"`
	Args              []string          `toml:"args"`
	Env               map[string]string `toml:"env"`
	Cwd               string            `toml:"cwd"`
	URL               string            `toml:"url"`
	HTTPHeaders       map[string]string `toml:"http_headers"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	Enabled           *bool             `toml:"enabled"`
	StartupTimeoutSec *float64          `toml:"startup_timeout_sec"`
	ToolTimeoutSec    *float64          `toml:"tool_timeout_sec"`
	EnabledTools      []string          `toml:"enabled_tools"`
	DisabledTools     []string          `toml:"disabled_tools"`
	// Approval is ask (the default: calls of tools not annotated
	// read-only follow the approval policy, and unattended runs refuse
	// them) or auto (they run without asking, unattended too). agent-ls's
	// own key.
	Approval string `toml:"approval"`
	// Transport of a url server: streamable-http, or sse for a server
	// of the older HTTP+SSE transport (protocol 2024-11-05). Unset,
	// streamable HTTP is tried first and SSE when the server refuses
	// it. agent-ls's own key.
	Transport string `toml:"transport"`
	// LogLevel is the least severe of the server's log messages
	// (notifications/message) agent-ls asks for with logging/setLevel
	// and writes to its log: one of MCPLogLevels; unset is warning.
	// agent-ls's own key.
	LogLevel string `toml:"log_level"`
	// OAuthClientID is a client registered beforehand with a url
	// server's authorization server, which `agent-ls mcp login` uses;
	// without it the login registers one dynamically.
	// OAuthClientSecretEnvVar names the environment variable holding
	// that client's secret, if it has one. agent-ls's own keys.
	OAuthClientID           string `toml:"oauth_client_id"`
	OAuthClientSecretEnvVar string `toml:"oauth_client_secret_env_var"`
}

// MCPLogLevels are MCP's log levels (those of syslog), least severe
// first.
var MCPLogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// MCP server transports of a url server.
const (
	MCPTransportStreamableHTTP = "streamable-http"
	MCPTransportSSE            = "sse"
)

// MCP server approval settings.
const (
	MCPApprovalAsk  = "ask"
	MCPApprovalAuto = "auto"
)

// Hook is a command of the user's run before or after a tool call.
type Hook struct {
	// Event is before_tool_use or after_tool_use.
	Event string `toml:"event"`
	// Tools limits the hook to these tool names; empty means every tool.
	Tools []string `toml:"tools"`
	// Command is the argv; no shell is involved.
	Command []string `toml:"command"`
	// TimeoutMs bounds the hook's run; 0 means the default (10 s).
	TimeoutMs int64 `toml:"timeout_ms"`
}

// Built-in provider ids.
const (
	ProviderOpenAI = "openai"
	ProviderOllama = "ollama"
)

// defaults is the bottom layer: what no file, variable or flag says.
func defaults() map[string]any {
	return map[string]any{
		"model":                      "gpt-5-codex",
		"model_provider":             ProviderOpenAI,
		"model_reasoning_effort":     "medium",
		"model_reasoning_summary":    "auto",
		"approval_policy":            string(policy.DefaultApprovalPolicy),
		"sandbox_mode":               string(policy.DefaultSandboxMode),
		"project_doc_max_bytes":      int64(32 << 10),
		"context_warning_percent":    int64(85),
		"rate_limit_warning_percent": int64(10),
		"language_query_timeout_ms":  int64(10000),
		"sandbox_workspace_write": map[string]any{
			"exclude_tmpdir_env_var": false,
			"exclude_slash_tmp":      false,
			"allow_project_sockets":  false,
		},
		"shell_environment_policy": map[string]any{"inherit": "all", "ignore_default_excludes": false},
		"tools":                    map[string]any{"web_search": false, "view_image": true, "update_plan": true},
		"model_providers": map[string]any{
			ProviderOpenAI: map[string]any{
				"name": "OpenAI", "base_url": "https://api.openai.com/v1", "env_key": "OPENAI_API_KEY", "wire_api": "responses",
				// An account in several organisations or projects picks
				// one, as OpenAI's SDKs and Codex read it.
				"env_http_headers": map[string]any{"OpenAI-Organization": "OPENAI_ORGANIZATION", "OpenAI-Project": "OPENAI_PROJECT"},
			},
			ProviderOllama: map[string]any{
				"name": "Ollama", "base_url": "http://127.0.0.1:11434/v1", "wire_api": "chat",
			},
		},
	}
}

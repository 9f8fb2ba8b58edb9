package config

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/agent-ls/agent-ls/internal/netproxy"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// values checks what the types allow but agent-ls does not: names that
// are not policies, URLs that are not URLs, numbers out of range. It runs
// on a tree whose types check passed.
func (c *checker) values(tree map[string]any) {
	c.settings("", tree)
	c.atLeast(tree, "language_query_timeout_ms", "", 1)
	if m, ok := tree["profiles"].(map[string]any); ok {
		for _, name := range sortedKeys(m) {
			if p, ok := m[name].(map[string]any); ok {
				c.settings(join("profiles", quoteKey(name)), p)
			}
		}
	}
	if m, ok := tree["model_providers"].(map[string]any); ok {
		for _, id := range sortedKeys(m) {
			if p, ok := m[id].(map[string]any); ok {
				c.provider(join("model_providers", quoteKey(id)), p)
			}
		}
	}
	if m, ok := tree["mcp_servers"].(map[string]any); ok {
		for _, name := range sortedKeys(m) {
			if s, ok := m[name].(map[string]any); ok {
				c.mcpServer(join("mcp_servers", quoteKey(name)), s)
			}
		}
	}
	for _, k := range []string{"context_warning_percent", "rate_limit_warning_percent"} {
		if n, ok := tree[k].(int64); ok && (n < 0 || n > 100) {
			c.add(k, "%d is not a percentage from 0 (no warning) to 100", n)
		}
	}
	if n, ok := tree["notify"].([]any); ok {
		c.program("notify", n)
	}
	c.atLeast(tree, "checkpoint_max_bytes", "", 0)
	if t, ok := tree["tui"].(map[string]any); ok {
		c.oneOf(t, "notification_method", "tui", notificationMethods)
	}
	if hooks, ok := tree["hooks"].([]any); ok {
		for i, h := range hooks {
			if m, ok := h.(map[string]any); ok {
				c.hook(fmt.Sprintf("hooks[%d]", i), m)
			}
		}
	}
}

// settings checks the keys a profile shares with the top level.
func (c *checker) settings(prefix string, m map[string]any) {
	c.oneOf(m, "model_reasoning_effort", prefix, reasoningEfforts)
	c.oneOf(m, "model_reasoning_summary", prefix, reasoningSummaries)
	c.oneOf(m, "model_verbosity", prefix, verbosities)
	if s, ok := m["approval_policy"].(string); ok {
		if _, err := policy.ParseApprovalPolicy(s); err != nil || s == "" {
			c.add(join(prefix, "approval_policy"), "unknown value %q (use %s)", s, orList(names(policy.ApprovalPolicies)))
		}
	}
	if s, ok := m["sandbox_mode"].(string); ok {
		if _, err := policy.ParseSandboxMode(s); err != nil || s == "" {
			c.add(join(prefix, "sandbox_mode"), "unknown value %q (use %s)", s, orList(names(policy.SandboxModes)))
		}
	}
	c.atLeast(m, "project_doc_max_bytes", prefix, 0)
	c.atLeast(m, "model_context_window", prefix, 1)
	c.atLeast(m, "model_auto_compact_token_limit", prefix, 1)
	if sw, ok := m["sandbox_workspace_write"].(map[string]any); ok {
		p := join(prefix, "sandbox_workspace_write")
		if roots, ok := sw["writable_roots"].([]any); ok {
			for i, r := range roots {
				if s, ok := r.(string); ok && !filepath.IsAbs(s) {
					c.add(fmt.Sprintf("%s.writable_roots[%d]", p, i), "%q is not an absolute path", s)
				}
			}
		}
		if s, ok := sw["cache_root"].(string); ok && !filepath.IsAbs(s) {
			c.add(join(p, "cache_root"), "%q is not an absolute path", s)
		}
		c.network(p, sw)
	}
	if sp, ok := m["shell_environment_policy"].(map[string]any); ok {
		p := join(prefix, "shell_environment_policy")
		c.oneOf(sp, "inherit", p, inherits)
		var ep ShellEnvironmentPolicy
		if decodeInto(sp, &ep) == nil {
			ep.Inherit = "" // checked above
			if err := ep.Policy().Validate(); err != nil {
				c.add(p, "%v", err)
			}
		}
	}
}

func (c *checker) provider(prefix string, m map[string]any) {
	c.oneOf(m, "wire_api", prefix, wireAPIs)
	if s, ok := m["base_url"].(string); ok {
		if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			c.add(join(prefix, "base_url"), "%q is not an http(s) URL", s)
		}
	}
	for _, k := range []string{"request_max_retries", "stream_max_retries"} {
		c.atLeast(m, k, prefix, 0)
		if n, ok := m[k].(int64); ok && n > 100 {
			c.add(join(prefix, k), "%d is over the limit of 100", n)
		}
	}
	c.atLeast(m, "stream_idle_timeout_ms", prefix, 1)
}

func (c *checker) mcpServer(prefix string, m map[string]any) {
	cmd, hasCmd := m["command"].(string)
	u, hasURL := m["url"].(string)
	switch {
	case hasCmd && hasURL:
		c.add(prefix, "set either command (a local server) or url (a remote one), not both")
	case !hasCmd && !hasURL:
		c.add(prefix, "set command (a local server) or url (a remote one)")
	case hasCmd && cmd == "":
		c.add(join(prefix, "command"), "is empty")
	case hasURL:
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			c.add(join(prefix, "url"), "%q is not an http(s) URL", u)
		}
	}
	for _, k := range []string{"startup_timeout_sec", "tool_timeout_sec"} {
		if v, ok := number(m[k]); ok && (v <= 0 || v > 24*3600) {
			c.add(join(prefix, k), "must be more than 0 and at most a day (86400)")
		}
	}
	c.oneOf(m, "approval", prefix, []string{MCPApprovalAsk, MCPApprovalAuto})
	if _, set := m["transport"]; set && hasCmd {
		c.add(join(prefix, "transport"), "is for a url server; a command server speaks MCP on its stdio")
	} else {
		c.oneOf(m, "transport", prefix, []string{MCPTransportStreamableHTTP, MCPTransportSSE})
	}
	c.oneOf(m, "log_level", prefix, MCPLogLevels)
	for _, k := range []string{"oauth_client_id", "oauth_client_secret_env_var"} {
		if _, set := m[k]; set && hasCmd {
			c.add(join(prefix, k), "is for a url server; a command server needs no login")
		}
	}
	if _, set := m["oauth_client_secret_env_var"]; set && m["oauth_client_id"] == nil {
		c.add(join(prefix, "oauth_client_secret_env_var"), "needs oauth_client_id")
	}
}

func (c *checker) hook(prefix string, m map[string]any) {
	if _, ok := m["event"]; !ok {
		c.add(prefix, "event is missing (use %s)", orList(hookEvents))
	}
	c.oneOf(m, "event", prefix, hookEvents)
	argv, _ := m["command"].([]any)
	c.program(join(prefix, "command"), argv)
	c.atLeast(m, "timeout_ms", prefix, 0)
	tools, _ := m["tools"].([]any)
	for i, t := range tools {
		if pat, ok := t.(string); ok {
			if _, err := path.Match(pat, ""); err != nil || pat == "" {
				c.add(fmt.Sprintf("%s.tools[%d]", prefix, i), "bad tool pattern %q", pat)
			}
		}
	}
}

func (c *checker) atLeast(m map[string]any, name, prefix string, lo int64) {
	if n, ok := m[name].(int64); ok && n < lo {
		c.add(join(prefix, name), "%d is less than %d", n, lo)
	}
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// decodeInto decodes a checked table into v.
func decodeInto(m map[string]any, v any) error {
	data, err := toml.Marshal(m)
	if err != nil {
		return err
	}
	return toml.Unmarshal(data, v)
}

// program checks the argv of a program the user's config runs outside the
// sandbox (a hook, notify).
func (c *checker) program(key string, argv []any) {
	if len(argv) == 0 {
		c.add(key, "is missing or empty: give the program and its arguments as an array")
	} else if s, _ := argv[0].(string); s == "" {
		c.add(key, "the program name is empty")
	} else if !filepath.IsAbs(s) && strings.ContainsAny(s, `/\`) {
		// Taken against the session's folder, a file of whatever project
		// is open would run.
		c.add(key, "%q is a relative path: give an absolute path, or a program name to look up on PATH", s)
	}
}

// network checks the network setting and the domain lists of a
// [sandbox_workspace_write] table.
func (c *checker) network(prefix string, sw map[string]any) {
	if s, ok := sw["network"].(string); ok {
		if _, err := policy.ParseNetworkMode(s); err != nil || s == "" {
			c.add(join(prefix, "network"), "unknown value %q (use %s)", s, orList(names(policy.NetworkModes)))
		}
	}
	for _, key := range []string{"allowed_domains", "denied_domains"} {
		list, _ := sw[key].([]any)
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				continue
			}
			if _, err := netproxy.ParseRules([]string{s}, nil); err != nil {
				c.add(fmt.Sprintf("%s.%s[%d]", prefix, key, i), "%q is not a host, *.domain or IP address with an optional :port", s)
			}
		}
	}
}

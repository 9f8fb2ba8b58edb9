package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// CodexImport is a Codex configuration carried over to agent-ls.
type CodexImport struct {
	// TOML is the agent-ls config file, checked.
	TOML []byte
	// Skipped names every Codex key that was not carried over, and why.
	Skipped []string
	// Files are the Codex files read.
	Files []string
}

// settingKeys are the keys a profile shares with the top level, Codex's
// and ours alike.
var settingKeys = []string{
	"model", "model_provider", "model_reasoning_effort", "model_reasoning_summary", "model_verbosity",
	"approval_policy", "sandbox_mode", "project_doc_max_bytes", "model_context_window", "model_auto_compact_token_limit",
}

// Keys of Codex's tables that mean the same here.
var (
	codexSandboxKeys  = []string{"writable_roots", "network_access", "exclude_tmpdir_env_var", "exclude_slash_tmp"}
	codexEnvKeys      = []string{"inherit", "ignore_default_excludes", "exclude", "include_only", "set"}
	codexProviderKeys = []string{"name", "base_url", "env_key", "wire_api", "query_params", "http_headers", "env_http_headers",
		"request_max_retries", "stream_max_retries", "stream_idle_timeout_ms"}
	codexMCPKeys = []string{"command", "args", "env", "cwd", "url", "http_headers", "bearer_token_env_var", "enabled",
		"startup_timeout_sec", "tool_timeout_sec", "enabled_tools", "disabled_tools"}
	codexToolKeys = []string{"web_search", "view_image"}
)

// ImportCodex reads Codex's configuration in home (~/.codex): its
// config.toml, with classic [profiles.X] tables, and the X.config.toml
// profile files of Codex 0.169 and later, and writes the agent-ls
// equivalent.
func ImportCodex(home string) (*CodexImport, error) {
	imp := &CodexImport{}
	main, err := readCodexFile(filepath.Join(home, "config.toml"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		main = map[string]any{}
	case err != nil:
		return nil, err
	default:
		imp.Files = append(imp.Files, filepath.Join(home, "config.toml"))
	}
	c := &codexConverter{imp: imp}
	out := c.settings("", main)
	if v, ok := main["openai_base_url"]; ok {
		c.put(out, []string{"model_providers", ProviderOpenAI, "base_url"}, v)
	}
	c.table(out, main, "sandbox_workspace_write", codexSandboxKeys)
	c.table(out, main, "shell_environment_policy", codexEnvKeys)
	c.tools(out, main)
	c.tables(out, main, "model_providers", codexProviderKeys, c.provider)
	c.tables(out, main, "mcp_servers", codexMCPKeys, c.mcpServer)
	c.notify(out, main)
	if p, ok := main["profile"].(string); ok {
		out["profile"] = p
	}
	if profs, ok := main["profiles"].(map[string]any); ok {
		for _, name := range sortedKeys(profs) {
			if p, ok := profs[name].(map[string]any); ok {
				c.put(out, []string{"profiles", name}, c.profile("profiles."+name, p))
			}
		}
	}
	if err := c.profileFiles(out, home); err != nil {
		return nil, err
	}
	known := map[string]bool{"openai_base_url": true, "sandbox_workspace_write": true, "shell_environment_policy": true, "tools": true,
		"model_providers": true, "mcp_servers": true, "profile": true, "profiles": true, "notify": true, "tui": true}
	for _, k := range settingKeys {
		known[k] = true
	}
	c.skipUnknown("", main, known)
	sort.Strings(imp.Skipped)
	return imp, c.render(out)
}

type codexConverter struct {
	imp *CodexImport
}

func (c *codexConverter) skip(key, why string) {
	c.imp.Skipped = append(c.imp.Skipped, key+": "+why)
}

func (c *codexConverter) skipUnknown(prefix string, m map[string]any, known map[string]bool) {
	for _, k := range sortedKeys(m) {
		if !known[k] {
			c.skip(join(prefix, quoteKey(k)), "agent-ls has no such setting")
		}
	}
}

// settings copies the keys a profile shares with the top level.
func (c *codexConverter) settings(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range settingKeys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	if v, ok := out["project_doc_max_bytes"].(int64); ok && v < 0 {
		c.skip(join(prefix, "project_doc_max_bytes"), "a negative budget")
		delete(out, "project_doc_max_bytes")
	}
	return out
}

// profile converts a Codex profile.
func (c *codexConverter) profile(prefix string, m map[string]any) map[string]any {
	out := c.settings(prefix, m)
	c.table(out, m, "sandbox_workspace_write", codexSandboxKeys)
	c.table(out, m, "shell_environment_policy", codexEnvKeys)
	c.tools(out, m)
	known := map[string]bool{"sandbox_workspace_write": true, "shell_environment_policy": true, "tools": true}
	for _, k := range settingKeys {
		known[k] = true
	}
	c.skipUnknown(prefix, m, known)
	return out
}

// table copies a table's known keys and reports the others.
func (c *codexConverter) table(out, m map[string]any, name string, keys []string) {
	t, ok := m[name].(map[string]any)
	if !ok {
		return
	}
	if conv := c.known(name, t, keys); len(conv) > 0 {
		out[name] = conv
	}
}

// known copies t's keys that are among keys and reports the others,
// named under prefix.
func (c *codexConverter) known(prefix string, t map[string]any, keys []string) map[string]any {
	conv := map[string]any{}
	known := map[string]bool{}
	for _, k := range keys {
		known[k] = true
		if v, ok := t[k]; ok {
			conv[k] = v
		}
	}
	c.skipUnknown(prefix, t, known)
	return conv
}

// tables converts each entry of a table of tables.
func (c *codexConverter) tables(out, m map[string]any, name string, keys []string, fix func(prefix string, codex, conv map[string]any)) {
	t, ok := m[name].(map[string]any)
	if !ok {
		return
	}
	for _, id := range sortedKeys(t) {
		entry, ok := t[id].(map[string]any)
		if !ok {
			continue
		}
		prefix := join(name, quoteKey(id))
		e := c.known(prefix, entry, keys)
		fix(prefix, entry, e)
		c.put(out, []string{name, id}, e)
	}
}

func (c *codexConverter) unskip(key string) {
	for i, s := range c.imp.Skipped {
		if strings.HasPrefix(s, key+": ") {
			c.imp.Skipped = append(c.imp.Skipped[:i], c.imp.Skipped[i+1:]...)
			return
		}
	}
}

// provider checks a provider's wire API: Codex has only responses now,
// older versions had chat, which agent-ls keeps.
func (c *codexConverter) provider(prefix string, _, p map[string]any) {
	if w, ok := p["wire_api"].(string); ok && w != "responses" && w != "chat" {
		c.skip(join(prefix, "wire_api"), fmt.Sprintf("unknown wire API %q", w))
		delete(p, "wire_api")
	}
}

// mcpServer takes the timeouts Codex also accepts in milliseconds (table
// reported them as unknown; the report is taken back).
func (c *codexConverter) mcpServer(prefix string, codex, conv map[string]any) {
	for _, k := range []string{"startup_timeout_ms", "tool_timeout_ms"} {
		ms, ok := number(codex[k])
		if !ok {
			continue
		}
		if _, set := conv[strings.TrimSuffix(k, "_ms")+"_sec"]; !set {
			conv[strings.TrimSuffix(k, "_ms")+"_sec"] = ms / 1000
		}
		c.unskip(join(prefix, k))
	}
}

// tools carries [tools]; Codex's older web_search_request is web_search.
func (c *codexConverter) tools(out, m map[string]any) {
	t, ok := m["tools"].(map[string]any)
	if !ok {
		return
	}
	conv := map[string]any{}
	for _, k := range codexToolKeys {
		if v, ok := t[k].(bool); ok {
			conv[k] = v
		}
	}
	if v, ok := t["web_search_request"].(bool); ok {
		if _, set := conv["web_search"]; !set {
			conv["web_search"] = v
		}
	}
	known := map[string]bool{"web_search_request": true}
	for _, k := range codexToolKeys {
		known[k] = true
	}
	c.skipUnknown("tools", t, known)
	if len(conv) > 0 {
		out["tools"] = conv
	}
}

// profileFiles reads Codex 0.169's X.config.toml profiles.
func (c *codexConverter) profileFiles(out map[string]any, home string) error {
	paths, err := filepath.Glob(filepath.Join(home, "*.config.toml"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".config.toml")
		m, err := readCodexFile(path)
		if err != nil {
			return err
		}
		c.imp.Files = append(c.imp.Files, path)
		if _, dup := lookup(out, "profiles", name); dup {
			c.skip(filepath.Base(path), fmt.Sprintf("profile %q is also a [profiles.%s] table; the table was kept", name, name))
			continue
		}
		c.put(out, []string{"profiles", name}, c.profile(filepath.Base(path), m))
	}
	return nil
}

func (c *codexConverter) put(out map[string]any, path []string, v any) { setPath(out, path, v) }

// render writes the agent-ls file and checks it as agent-ls will read it.
func (c *codexConverter) render(out map[string]any) error {
	data, err := toml.Marshal(out)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("# agent-ls configuration, carried over from Codex's\n")
	for _, f := range c.imp.Files {
		fmt.Fprintf(&b, "#   %s\n", f)
	}
	b.WriteString("# Check it with: agent-ls config --check\n\n")
	b.Write(data)
	if _, probs := Parse(b.Bytes(), "imported configuration"); probs != nil {
		var msgs []string
		for _, p := range probs {
			msgs = append(msgs, p.String())
		}
		return fmt.Errorf("the Codex configuration has values agent-ls cannot use:\n%s", strings.Join(msgs, "\n"))
	}
	c.imp.TOML = b.Bytes()
	return nil
}

func readCodexFile(path string) (map[string]any, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		p := syntaxProblem(path, err)
		return nil, errors.New(p.String())
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// notify carries over Codex's notify program and its [tui] notifications
// (on for a list of notification types too: agent-ls notifies of a
// turn's end and of waiting on the user, both).
func (c *codexConverter) notify(out, main map[string]any) {
	if n, ok := main["notify"].([]any); ok {
		if slices.ContainsFunc(n, func(v any) bool { _, ok := v.(string); return !ok }) {
			c.skip("notify", "not a list of strings")
		} else {
			out["notify"] = n
		}
	}
	t, ok := main["tui"].(map[string]any)
	if !ok {
		return
	}
	tui := map[string]any{}
	for _, k := range sortedKeys(t) {
		switch v := t[k].(type) {
		case bool:
			if k == "notifications" {
				tui[k] = v
				continue
			}
		case []any:
			if k == "notifications" {
				tui[k] = len(v) > 0
				continue
			}
		case string:
			if k == "notification_method" && slices.Contains(notificationMethods, v) {
				tui[k] = v
				continue
			}
		}
		c.skip("tui."+quoteKey(k), "agent-ls has no such setting")
	}
	if len(tui) > 0 {
		out["tui"] = tui
	}
}

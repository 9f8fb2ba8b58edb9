package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Override parses a -c key=value argument: a dotted key and a TOML value
// (`-c model_providers.azure.query_params={api-version="2025-04-01"}`). A
// value that is not TOML is taken as a string, as Codex does, so
// `-c model=o3` works unquoted. The result is checked as a config file's
// key would be.
func Override(arg string) (map[string]any, error) {
	key, value, ok := strings.Cut(arg, "=")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if !ok || key == "" {
		return nil, fmt.Errorf("-c %q: want key=value, e.g. -c model=o3", arg)
	}
	var tree map[string]any
	if err := toml.Unmarshal([]byte(key+" = "+value), &tree); err != nil {
		if err := toml.Unmarshal([]byte(key+" = "+strconv.Quote(value)), &tree); err != nil {
			return nil, fmt.Errorf("-c %s: %q is not a dotted key", arg, key)
		}
	}
	c := &checker{source: "-c " + arg}
	c.check("", tree, reflect.TypeFor[Config]())
	if len(c.probs) == 0 {
		c.values(tree)
	}
	if len(c.probs) > 0 {
		msgs := make([]string, len(c.probs))
		for i, p := range c.probs {
			msgs[i] = p.Key + ": " + p.Message
		}
		return nil, fmt.Errorf("-c %s: %s", arg, strings.Join(msgs, "; "))
	}
	return tree, nil
}

// Merge adds tree's keys to l's, over what l has.
func (l *Layer) Merge(tree map[string]any, source string) {
	if l.Tree == nil {
		l.Tree = map[string]any{}
	}
	m := &merged{tree: l.Tree, sources: map[string]string{}}
	m.merge(l.Tree, tree, "", &Layer{Source: source})
	if l.KeySources == nil {
		l.KeySources = map[string]string{}
	}
	for k, s := range m.sources {
		l.KeySources[k] = s
	}
}

// Set sets one key of l (a dotted path of plain keys) and names its source.
func (l *Layer) Set(key string, v any, source string) {
	if l.Tree == nil {
		l.Tree = map[string]any{}
	}
	setPath(l.Tree, strings.Split(key, "."), v)
	if l.KeySources == nil {
		l.KeySources = map[string]string{}
	}
	l.KeySources[key] = source
}

// SetProvider sets a key of the provider in use.
func (l *Layer) SetProvider(key string, v any, source string) {
	if l.Provider == nil {
		l.Provider = map[string]any{}
	}
	l.Provider[key] = v
	if l.KeySources == nil {
		l.KeySources = map[string]string{}
	}
	l.KeySources["provider."+key] = source
}

// editorKeys are the settings an editor may send (protocol section 9):
// camelCase in the editor, snake_case here. Settings that decide what
// runs or where data goes are not among them.
var editorKeys = map[string]string{
	"model":                 "model",
	"modelProvider":         "model_provider",
	"modelReasoningEffort":  "model_reasoning_effort",
	"modelReasoningSummary": "model_reasoning_summary",
	"modelVerbosity":        "model_verbosity",
	"approvalPolicy":        "approval_policy",
	"sandboxMode":           "sandbox_mode",
	"profile":               "profile",
	"network":               "sandbox_workspace_write.network",
}

// EditorLayer reads an editor's settings (initializationOptions, or the
// agentLs section of workspace/didChangeConfiguration). Keys it does not
// know are left to others (the server reads saveAgentEdits itself); a
// known key with a bad value is a problem and is left out; null or ""
// leaves a key to the layers below.
func EditorLayer(raw json.RawMessage, source string) (*Layer, []Problem) {
	l := &Layer{Source: source, Tree: map[string]any{}}
	if len(raw) == 0 || string(raw) == "null" {
		return l, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return l, []Problem{{Source: source, Message: "want an object of settings: " + err.Error()}}
	}
	var probs []Problem
	for _, camel := range sortedKeys(obj) {
		key, ok := editorKeys[camel]
		if !ok || string(obj[camel]) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(obj[camel], &s); err != nil {
			probs = append(probs, Problem{Source: source, Key: camel, Message: "want a string"})
			continue
		}
		if s == "" {
			continue
		}
		c := &checker{source: source}
		if camel == "network" {
			c.network("", map[string]any{"network": s})
		}
		c.values(map[string]any{key: s})
		if len(c.probs) > 0 {
			p := c.probs[0]
			p.Key = camel
			probs = append(probs, p)
			continue
		}
		l.Set(key, s, source+" "+camel)
	}
	return l, probs
}

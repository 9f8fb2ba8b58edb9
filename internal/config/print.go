package config

import (
	"fmt"
	"io"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Print writes the effective configuration as TOML with dotted keys, each
// value followed by where it came from. Values that may hold secrets
// (HTTP headers, the environment given to MCP servers and commands) are
// hidden; API keys are never part of a configuration.
func (r *Resolved) Print(w io.Writer) error {
	var lines [][2]string
	var walk func(prefix string, tree map[string]any)
	walk = func(prefix string, tree map[string]any) {
		// Plain values first, then tables, as a TOML file is written.
		keys := sortedKeys(tree)
		for pass := 0; pass < 2; pass++ {
			for _, k := range keys {
				key := join(prefix, quoteKey(k))
				sub, isTable := tree[k].(map[string]any)
				switch {
				case pass == 0 && !isTable:
					lines = append(lines, [2]string{key + " = " + render(key, tree[k]), r.Sources[key]})
				case pass == 1 && isTable && len(sub) == 0:
					lines = append(lines, [2]string{key + " = {}", r.Sources[key]})
				case pass == 1 && isTable:
					walk(key, sub)
				}
			}
		}
	}
	walk("", r.tree)
	width := 0
	for _, l := range lines {
		width = max(width, len(l[0]))
	}
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%-*s  # %s\n", width, l[0], l[1]); err != nil {
			return err
		}
	}
	return nil
}

// secretParents are the tables whose values are hidden.
var secretParents = []string{".http_headers.", ".env.", "shell_environment_policy.set."}

func render(key string, v any) string {
	for _, p := range secretParents {
		if strings.Contains("."+key, p) {
			return `"(hidden)"`
		}
	}
	b, err := toml.Marshal(map[string]any{"v": v})
	if err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSpace(string(b))
	return strings.TrimSpace(strings.TrimPrefix(s, "v ="))
}

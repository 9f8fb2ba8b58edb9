package config

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Layer is one source of settings.
type Layer struct {
	// Source names the layer in problems and in `agent-ls config`:
	// "environment", "flags", "editor settings".
	Source string
	// Tree holds the layer's keys as TOML would decode them: strings,
	// bools, int64, float64, []any and nested map[string]any. A "profile"
	// key chooses the profile: the highest layer that sets one wins.
	Tree map[string]any
	// Provider holds keys for the table of the provider in use,
	// whichever the layers choose (--base-url, AGENT_LS_WIRE_API).
	Provider map[string]any
	// KeySources names the source of single keys where it is more
	// precise than Source (the flag or variable that set it).
	KeySources map[string]string

	lines map[string]int // a file's key lines
	path  string         // a file's path
}

// sourceOf describes where the layer's key came from.
func (l *Layer) sourceOf(key string) string {
	if s, ok := l.KeySources[key]; ok {
		return s
	}
	if l.path != "" {
		for k := key; k != ""; k = parentKey(k) {
			if line, ok := l.lines[k]; ok {
				return l.Source + " (" + l.path + ":" + strconv.Itoa(line) + ")"
			}
		}
		return l.Source + " (" + l.path + ")"
	}
	return l.Source
}

// merged is layers folded into one tree with the source of each leaf.
type merged struct {
	tree    map[string]any
	sources map[string]string
}

func mergeLayers(layers []*Layer) *merged {
	m := &merged{tree: map[string]any{}, sources: map[string]string{}}
	for _, l := range layers {
		if l != nil {
			m.merge(m.tree, l.Tree, "", l)
		}
	}
	return m
}

// merge copies src into dst: tables merge key by key, anything else
// replaces what was there.
func (m *merged) merge(dst, src map[string]any, prefix string, l *Layer) {
	for _, k := range sortedKeys(src) {
		v := src[k]
		key := join(prefix, quoteKey(k))
		// Only a key that was there has sources to forget.
		old, had := dst[k]
		if sm, ok := v.(map[string]any); ok {
			dm, ok := old.(map[string]any)
			if !ok {
				dm = map[string]any{}
				dst[k] = dm
				if had {
					m.dropUnder(key)
				}
			}
			if len(sm) == 0 {
				m.sources[key] = l.sourceOf(key)
			}
			m.merge(dm, sm, key, l)
			continue
		}
		if had {
			m.dropUnder(key)
		}
		dst[k] = clone(v)
		m.sources[key] = l.sourceOf(key)
	}
}

// dropUnder forgets the sources of what key replaces.
func (m *merged) dropUnder(key string) {
	for k := range m.sources {
		if k == key || strings.HasPrefix(k, key+".") || strings.HasPrefix(k, key+"[") {
			delete(m.sources, k)
		}
	}
}

// clone deep-copies a TOML value, so layers never share maps or slices.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = clone(e)
		}
		return out
	}
	return v
}

// lookup finds a dotted path of plain keys in a tree.
func lookup(tree map[string]any, path ...string) (any, bool) {
	var cur any = tree
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// withProvider returns l with its Provider keys moved under
// model_providers.<id>.
func withProvider(l *Layer, id string) *Layer {
	if l == nil || len(l.Provider) == 0 {
		return l
	}
	c := *l
	c.Tree = maps.Clone(l.Tree)
	if c.Tree == nil {
		c.Tree = map[string]any{}
	}
	provs, _ := clone(c.Tree["model_providers"]).(map[string]any)
	if provs == nil {
		provs = map[string]any{}
	}
	p, _ := provs[id].(map[string]any)
	if p == nil {
		p = map[string]any{}
	}
	prefix := join("model_providers", quoteKey(id))
	c.KeySources = maps.Clone(l.KeySources)
	if c.KeySources == nil {
		c.KeySources = map[string]string{}
	}
	for _, k := range sortedKeys(l.Provider) {
		p[k] = clone(l.Provider[k])
		if s, ok := l.KeySources["provider."+k]; ok {
			c.KeySources[join(prefix, k)] = s
		}
	}
	provs[id] = p
	c.Tree["model_providers"] = provs
	return &c
}

// without returns tree less the top-level keys named.
func without(tree map[string]any, keys ...string) map[string]any {
	out := maps.Clone(tree)
	for k := range out {
		if slices.Contains(keys, k) {
			delete(out, k)
		}
	}
	return out
}

// setPath sets tree's value at path, making the tables on the way.
func setPath(tree map[string]any, path []string, v any) {
	t := tree
	for _, p := range path[:len(path)-1] {
		next, ok := t[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			t[p] = next
		}
		t = next
	}
	t[path[len(path)-1]] = v
}

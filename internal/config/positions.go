package config

import (
	"fmt"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyLines maps each dotted key of a TOML document (array tables indexed:
// hooks[1].command) to the line it is written on, so problems found after
// decoding can name their line. data must parse; errors are not reported
// here.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	arrays := map[string]int{} // array-table path -> entries so far
	p := &unstable.Parser{}
	p.Reset(data)
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table = dotted(e.Key(), "")
			lines[table] = keyLine(p, e.Key())
		case unstable.ArrayTable:
			base := dotted(e.Key(), "")
			table = fmt.Sprintf("%s[%d]", base, arrays[base])
			arrays[base]++
			lines[table] = keyLine(p, e.Key())
		case unstable.KeyValue:
			keyValueLines(p, e, table, lines)
		}
	}
	return lines
}

// keyValueLines records a key = value line, and the keys of inline
// tables inside its value.
func keyValueLines(p *unstable.Parser, e *unstable.Node, table string, lines map[string]int) {
	key := dotted(e.Key(), table)
	line := keyLine(p, e.Key())
	lines[key] = line
	valueLines(p, e.Value(), key, line, lines)
}

func valueLines(p *unstable.Parser, v *unstable.Node, key string, line int, lines map[string]int) {
	switch v.Kind {
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			keyValueLines(p, it.Node(), key, lines)
		}
	case unstable.Array:
		it := v.Children()
		for i := 0; it.Next(); i++ {
			k := fmt.Sprintf("%s[%d]", key, i)
			n := it.Node()
			lines[k] = line
			if n.Raw.Length > 0 {
				lines[k] = p.Shape(n.Raw).Start.Line
			}
			valueLines(p, n, k, lines[k], lines)
		}
	}
}

// dotted joins the parts of a key under prefix.
func dotted(it unstable.Iterator, prefix string) string {
	key := prefix
	for it.Next() {
		key = join(key, quoteKey(string(it.Node().Data)))
	}
	return key
}

// keyLine is the line of a key's first part.
func keyLine(p *unstable.Parser, it unstable.Iterator) int {
	if it.Next() {
		return p.Shape(it.Node().Raw).Start.Line
	}
	return 0
}

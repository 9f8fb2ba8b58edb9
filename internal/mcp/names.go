package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxToolNameLen is the longest tool name the model APIs accept.
const MaxToolNameLen = 64

// nameSep joins a server's name and its tool's name.
const nameSep = "__"

// ToolName is the name the model knows server's tool by: server__tool
// with every character the APIs refuse (anything but ASCII letters,
// digits, _ and -) replaced by _, cut to MaxToolNameLen with a hash of
// the whole name when longer, so the result is stable across runs.
func ToolName(server, tool string) string {
	name := sanitizeName(server + nameSep + tool)
	if len(name) > MaxToolNameLen {
		return hashedName(name, server, tool)
	}
	return name
}

// hashedName is name cut to fit with the hash of (server, tool) after it:
// the name of a tool whose plain name is too long or taken.
func hashedName(name, server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if len(name) > MaxToolNameLen-len(suffix) {
		name = name[:MaxToolNameLen-len(suffix)]
	}
	return name + suffix
}

func sanitizeName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// toolKey is a tool of a server.
type toolKey struct{ server, tool string }

// names hands out unique model names to the tools of all servers of a
// set: a tool keeps the name it was given while its server offers it, and
// a tool whose plain name another tool holds gets a hashed one.
type names struct {
	owner map[string]toolKey // model name → tool
	given map[toolKey]string
}

func newNames() *names {
	return &names{owner: map[string]toolKey{}, given: map[toolKey]string{}}
}

// name returns the model name of k, giving it one if it has none.
func (n *names) name(k toolKey) string {
	if name, ok := n.given[k]; ok {
		return name
	}
	name := ToolName(k.server, k.tool)
	if _, taken := n.owner[name]; taken {
		name = hashedName(sanitizeName(k.server+nameSep+k.tool), k.server, k.tool)
		for i := 0; ; i++ {
			if _, taken := n.owner[name]; !taken {
				break
			}
			// Two tools whose hashes agree too: vanishingly rare, but
			// a name must not be shared.
			name = hashedName(name, k.server, k.tool+strings.Repeat("\x00", i+1))
		}
	}
	n.owner[name], n.given[k] = k, name
	return name
}

// release forgets the names of server's tools that are not in keep.
func (n *names) release(server string, keep map[string]bool) {
	for k, name := range n.given {
		if k.server == server && !keep[k.tool] {
			delete(n.given, k)
			delete(n.owner, name)
		}
	}
}

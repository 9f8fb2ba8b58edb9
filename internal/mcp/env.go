package mcp

import (
	"maps"
	"runtime"
	"strings"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// windowsBase are variables programs on Windows cannot start without.
var windowsBase = []string{"SYSTEMROOT", "SYSTEMDRIVE", "COMSPEC", "PATHEXT", "WINDIR", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "PROGRAMDATA", "PROGRAMFILES"}

// ServerEnv is the environment of a stdio server: the core variables of
// environ (policy.CoreEnvVars: PATH, HOME, the user, the temporary
// directory, the locale and the terminal; on Windows also those a
// process needs to start), then set, the server's env table. Nothing else
// of agent-ls's environment reaches the server: not its API keys, not
// the user's other secrets.
func ServerEnv(environ []string, set map[string]string) []string {
	p := policy.EnvPolicy{Inherit: policy.InheritCore, Set: maps.Clone(set)}
	if runtime.GOOS == "windows" {
		if p.Set == nil {
			p.Set = map[string]string{}
		}
		for _, kv := range environ {
			name, value, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			for _, w := range windowsBase {
				if _, given := set[name]; strings.EqualFold(name, w) && !given {
					p.Set[name] = value
				}
			}
		}
	}
	return p.Environ(environ)
}

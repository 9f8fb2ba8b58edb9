package policy

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// EnvInherit says which of agent-ls's environment variables a command
// starts from, before the excludes, set and include_only of an [EnvPolicy].
type EnvInherit string

// The inherit choices, named as Codex names them.
const (
	// InheritAll starts from every variable of agent-ls's environment.
	InheritAll EnvInherit = "all"
	// InheritCore starts from CoreEnvVars only.
	InheritCore EnvInherit = "core"
	// InheritNone starts from nothing: only what Set adds.
	InheritNone EnvInherit = "none"
)

// EnvInherits lists the valid inherit choices.
var EnvInherits = []EnvInherit{InheritAll, InheritCore, InheritNone}

// ParseEnvInherit returns the inherit choice named s; "" is InheritAll.
func ParseEnvInherit(s string) (EnvInherit, error) {
	if s == "" {
		return InheritAll, nil
	}
	for _, v := range EnvInherits {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("unknown shell environment inherit %q (use %s)", s, list(EnvInherits))
}

// CoreEnvVars are the patterns of the variables InheritCore keeps: who the
// user is, where home and the temporary directory are, which shell and
// PATH, and the locale and terminal, which programs need to print text.
var CoreEnvVars = []string{"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "LANG", "LC_*", "TERM"}

// DefaultEnvExcludes are the patterns of the variables no command gets
// unless IgnoreDefaultExcludes is set: names that look like credentials
// (API keys, secrets, tokens, passwords), which a command has no business
// reading and a model could leak. Codex's defaults plus *PASSWORD*.
var DefaultEnvExcludes = []string{"*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*"}

// EnvPolicy decides the environment of the commands the agent runs (Codex's
// shell_environment_policy). It is applied in Codex's order: start from
// Inherit, drop DefaultEnvExcludes (unless IgnoreDefaultExcludes), drop
// Exclude, add Set, then, when IncludeOnly is not empty, keep only what it
// matches (Set's variables too). Patterns are globs (`*`, `?`, `[...]`, as
// in path.Match) matched against whole names without regard to case. The
// zero value inherits everything but the default excludes, Codex's
// default in its earlier releases (later ones default
// ignore_default_excludes to true; agent-ls keeps the safer default).
type EnvPolicy struct {
	Inherit               EnvInherit
	IgnoreDefaultExcludes bool
	Exclude               []string
	Set                   map[string]string
	IncludeOnly           []string
}

// Validate checks the inherit name, the patterns and the names and values
// of Set, so that Environ never meets a pattern it cannot match (a bad
// exclude pattern would otherwise let everything through).
func (p EnvPolicy) Validate() error {
	var errs []error
	if _, err := ParseEnvInherit(string(p.Inherit)); err != nil {
		errs = append(errs, err)
	}
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"exclude", p.Exclude}, {"include_only", p.IncludeOnly}} {
		for _, pat := range list.patterns {
			if _, err := path.Match(globFold(pat), ""); err != nil || pat == "" || strings.ContainsRune(pat, 0) {
				errs = append(errs, fmt.Errorf("shell environment %s: bad pattern %q", list.key, pat))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.Set)) {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			errs = append(errs, fmt.Errorf("shell environment set: bad variable name %q", name))
		} else if strings.ContainsRune(p.Set[name], 0) {
			errs = append(errs, fmt.Errorf("shell environment set: the value of %s holds a NUL byte", name))
		}
	}
	return errors.Join(errs...)
}

// Clone returns a copy of p that shares nothing with it.
func (p EnvPolicy) Clone() EnvPolicy {
	p.Exclude = slices.Clone(p.Exclude)
	p.IncludeOnly = slices.Clone(p.IncludeOnly)
	p.Set = maps.Clone(p.Set)
	return p
}

// Environ turns environ (KEY=VALUE entries, as os.Environ returns them)
// into the environment of a command. The result is never nil, so that
// exec.Cmd does not take a nil for "inherit everything". Each name appears
// once, with its last value, in the order of its first appearance; Set's
// new names follow in sorted order. An Inherit that Validate would refuse
// inherits nothing.
func (p EnvPolicy) Environ(environ []string) []string {
	vars := make([]envVar, 0, len(environ)+len(p.Set))
	for _, kv := range environ {
		name, value, ok := cutEnv(kv)
		if !ok || !p.inherits(name) {
			continue
		}
		vars = setVar(vars, name, value)
	}
	vars = slices.DeleteFunc(vars, func(v envVar) bool {
		return (!p.IgnoreDefaultExcludes && matchAny(DefaultEnvExcludes, v.name)) || matchAny(p.Exclude, v.name)
	})
	for _, name := range slices.Sorted(maps.Keys(p.Set)) {
		vars = setVar(vars, name, p.Set[name])
	}
	if len(p.IncludeOnly) > 0 {
		vars = slices.DeleteFunc(vars, func(v envVar) bool { return !matchAny(p.IncludeOnly, v.name) })
	}
	out := make([]string, 0, len(vars))
	for _, v := range vars {
		out = append(out, v.name+"="+v.value)
	}
	return out
}

// inherits reports whether the Inherit step keeps the variable name.
func (p EnvPolicy) inherits(name string) bool {
	switch p.Inherit {
	case InheritAll, "":
		return true
	case InheritCore:
		return matchAny(CoreEnvVars, name)
	default:
		return false
	}
}

type envVar struct{ name, value string }

// setVar sets name to value in vars, in place when it is there already.
func setVar(vars []envVar, name, value string) []envVar {
	if i := slices.IndexFunc(vars, func(v envVar) bool { return v.name == name }); i >= 0 {
		vars[i].value = value
		return vars
	}
	return append(vars, envVar{name, value})
}

// cutEnv splits a KEY=VALUE entry. A leading '=' belongs to the name, as
// in the per-drive directories Windows keeps in its environment ("=C:=C:\").
func cutEnv(kv string) (name, value string, ok bool) {
	i := strings.IndexByte(kv, '=')
	if i == 0 {
		if j := strings.IndexByte(kv[1:], '='); j >= 0 {
			i = j + 1
		}
	}
	if i <= 0 {
		return "", "", false
	}
	return kv[:i], kv[i+1:], true
}

// matchAny reports whether name matches one of the patterns, without
// regard to case. An invalid pattern matches nothing (Validate refuses
// it).
func matchAny(patterns []string, name string) bool {
	name = globFold(name)
	for _, pat := range patterns {
		if ok, _ := path.Match(globFold(pat), name); ok {
			return true
		}
	}
	return false
}

// globFold upper-cases s and turns '/' into NUL: path.Match's '*' stops
// at '/', which is an ordinary character in a variable's name, and a name
// such as A/API_KEY must still match *KEY*. Neither a name nor a pattern
// holds NUL, so nothing else changes.
func globFold(s string) string {
	return strings.ReplaceAll(strings.ToUpper(s), "/", "\x00")
}

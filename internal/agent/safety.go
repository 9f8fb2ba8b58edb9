package agent

import (
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command safety: which commands may run without asking under the
// untrusted policy (known-safe: they only read), and which must never run
// without the user's word (dangerous: they destroy work or history).

// alwaysSafe commands only read, whatever their arguments.
var alwaysSafe = map[string]bool{
	"cat": true, "cd": true, "cut": true, "echo": true, "expr": true, "false": true,
	"grep": true, "head": true, "id": true, "ls": true, "nl": true, "paste": true,
	"pwd": true, "rev": true, "seq": true, "stat": true, "tail": true, "tr": true,
	"true": true, "uname": true, "uniq": true, "wc": true, "which": true,
	"whoami": true, "numfmt": true, "tac": true,
}

// commands splits argv into the simple commands it runs: argv itself, or
// for `bash -lc SCRIPT` (sh, zsh, -c too) the commands of the script. ok
// is false when the script is more than plain words joined by &&, ||, ;
// and | (redirections, substitutions, variables, subshells...), since
// then nothing can be said about it without running it.
func commands(argv []string) (cmds [][]string, ok bool) {
	script, isShell := shellScript(argv)
	if !isShell {
		return [][]string{argv}, len(argv) > 0
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, false
	}
	ok = true
	var walkStmt func(*syntax.Stmt)
	walkStmt = func(s *syntax.Stmt) {
		if !ok {
			return
		}
		if s.Negated || s.Background || s.Coprocess || len(s.Redirs) > 0 {
			ok = false
			return
		}
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			if len(c.Assigns) > 0 || len(c.Args) == 0 {
				ok = false
				return
			}
			words := make([]string, 0, len(c.Args))
			for _, w := range c.Args {
				lit, isLit := literal(w)
				if !isLit {
					ok = false
					return
				}
				words = append(words, lit)
			}
			cmds = append(cmds, words)
		case *syntax.BinaryCmd:
			switch c.Op {
			case syntax.AndStmt, syntax.OrStmt, syntax.Pipe:
				walkStmt(c.X)
				walkStmt(c.Y)
			default:
				ok = false
			}
		default:
			ok = false
		}
	}
	for _, s := range f.Stmts {
		walkStmt(s)
	}
	return cmds, ok && len(cmds) > 0
}

// shellScript recognises `bash -lc SCRIPT` and its spellings.
func shellScript(argv []string) (string, bool) {
	if len(argv) != 3 {
		return "", false
	}
	switch filepath.Base(argv[0]) {
	case "bash", "sh", "zsh", "dash":
	default:
		return "", false
	}
	switch argv[1] {
	case "-c", "-lc":
		return argv[2], true
	}
	return "", false
}

// literal returns the word's value when it has no expansions.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// knownSafe reports whether argv only reads: every command it runs is on
// the safe list with safe arguments.
func knownSafe(argv []string) bool {
	cmds, ok := commands(argv)
	if !ok {
		return false
	}
	for _, c := range cmds {
		if !safeCommand(c) {
			return false
		}
	}
	return true
}

func safeCommand(c []string) bool {
	name, args := filepath.Base(c[0]), c[1:]
	if alwaysSafe[name] {
		return true
	}
	switch name {
	case "base64":
		return !hasAny(args, "-o", "--output") && !hasPrefix(args, "--output=")
	case "find":
		return !hasAny(args, "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf")
	case "rg":
		return !hasAny(args, "--pre", "--hostname-bin", "--search-zip", "-z") && !hasPrefix(args, "--pre=", "--hostname-bin=")
	case "git":
		return safeGit(args)
	case "sed":
		return len(args) <= 3 && len(args) >= 2 && args[0] == "-n" && sedPrint(args[1])
	}
	return false
}

func safeGit(args []string) bool {
	// Global options (-c, --config-env, -C, ...) can make git run
	// anything, so only a bare subcommand qualifies.
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return false
	}
	rest := args[1:]
	if hasAny(rest, "--output", "--ext-diff", "--textconv", "--exec", "--paginate") || hasPrefix(rest, "--output=", "--exec=") {
		return false
	}
	switch args[0] {
	case "status", "log", "diff", "show":
		return true
	case "branch":
		for _, a := range rest {
			switch a {
			case "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "--show-current", "-l":
			default:
				return false
			}
		}
		return true
	}
	return false
}

// sedPrint accepts `Np` and `M,Np`.
func sedPrint(expr string) bool {
	body, ok := strings.CutSuffix(expr, "p")
	if !ok || body == "" {
		return false
	}
	for _, part := range strings.SplitN(body, ",", 2) {
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

// dangerous reports whether argv may destroy work that the sandbox cannot
// protect (history, uncommitted changes, whole trees), so it must never
// run without the user's word. For scripts that cannot be parsed every
// word sequence is checked, erring on the side of asking.
func dangerous(argv []string) (string, bool) {
	cmds, ok := commands(argv)
	if !ok {
		if script, isShell := shellScript(argv); isShell {
			// Without a parse, any word may start a command (after
			// do, then, a brace...): check every suffix.
			for _, c := range roughCommands(script) {
				for i := range c {
					if why, bad := dangerousCommand(c[i:]); bad {
						return why, true
					}
				}
			}
			return "", false
		}
		cmds = [][]string{argv}
	}
	for _, c := range cmds {
		if why, bad := dangerousCommand(c); bad {
			return why, true
		}
	}
	return "", false
}

// roughCommands splits a script at shell operators without parsing it.
func roughCommands(script string) [][]string {
	var cmds [][]string
	var cur []string
	for _, f := range strings.FieldsFunc(script, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }) {
		f = strings.Trim(f, `"'()`)
		if f == "&&" || f == "||" || f == ";" || f == "|" || f == "" {
			if len(cur) > 0 {
				cmds = append(cmds, cur)
			}
			cur = nil
			continue
		}
		if strings.HasSuffix(f, ";") {
			cur = append(cur, strings.TrimSuffix(f, ";"))
			cmds = append(cmds, cur)
			cur = nil
			continue
		}
		cur = append(cur, f)
	}
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

func dangerousCommand(c []string) (string, bool) {
	if len(c) == 0 {
		return "", false
	}
	name, args := filepath.Base(c[0]), c[1:]
	switch name {
	case "sudo", "doas", "su":
		return name + " runs commands with more privileges", true
	case "rm":
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "--force" || a == "--recursive" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "frR")) {
				return "rm " + a + " deletes without asking", true
			}
		}
	case "dd":
		if hasPrefix(args, "of=") {
			return "dd of= overwrites its target", true
		}
	case "shred", "mkfs", "wipefs":
		return name + " destroys data", true
	case "git":
		return dangerousGit(args)
	}
	if strings.HasPrefix(name, "mkfs.") {
		return name + " destroys data", true
	}
	return "", false
}

func dangerousGit(args []string) (string, bool) {
	// Skip global options to find the subcommand.
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-c" || args[i] == "-C" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return "", false
	}
	sub, rest := args[i], args[i+1:]
	switch sub {
	case "push":
		if hasAny(rest, "-f", "--force", "--mirror", "--delete", "-d") || hasPrefix(rest, "--force-with-lease", "--force-if-includes", "+") {
			return "git push that rewrites or deletes remote history", true
		}
	case "reset":
		if hasAny(rest, "--hard", "--merge", "--keep") {
			return "git reset that discards changes", true
		}
	case "clean":
		for _, a := range rest {
			if a == "--force" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f")) {
				return "git clean that deletes untracked files", true
			}
		}
	case "branch":
		if hasAny(rest, "-D") || (hasAny(rest, "-d", "--delete") && hasAny(rest, "-f", "--force")) {
			return "git branch that deletes an unmerged branch", true
		}
	case "checkout":
		if hasAny(rest, "--", ".", "-f", "--force") {
			return "git checkout that discards changes", true
		}
	case "restore":
		if !hasAny(rest, "--staged", "-S") || hasAny(rest, "--worktree", "-W") {
			return "git restore that discards changes", true
		}
	case "stash":
		if len(rest) > 0 && (rest[0] == "drop" || rest[0] == "clear") {
			return "git stash " + rest[0] + " deletes stashed work", true
		}
	case "filter-branch", "filter-repo":
		return "git " + sub + " rewrites history", true
	}
	return "", false
}

func hasAny(args []string, flags ...string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return slices.Contains(flags, a) })
}

func hasPrefix(args []string, prefixes ...string) bool {
	for _, a := range args {
		for _, p := range prefixes {
			if strings.HasPrefix(a, p) {
				return true
			}
		}
	}
	return false
}

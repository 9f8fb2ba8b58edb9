package app

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

const configUsage = `Usage: agent-ls config [--check] [--cd DIR] [flags]

Prints the configuration agent-ls would run with in DIR (default: the
current directory), each value with where it came from: the defaults,
the user config ($XDG_CONFIG_HOME/agent-ls/config.toml, by default
~/.config/agent-ls/config.toml), the project's .agent-ls/config.toml
(which may only narrow), a profile, the environment, or the flags given
here (the same as serve's and exec's). Values that may hold secrets are
hidden; API keys are never printed.

With --check it prints only the problems, every one with its file, line
and key, and exits 1 if there is an error.

With --import-codex it reads Codex's configuration ($CODEX_HOME, by
default ~/.codex: config.toml with its [profiles.X] tables, and the
X.config.toml profile files) and writes the agent-ls equivalent to the
user config file (or --output), never over an existing file, listing
every key it could not carry over.

Flags:
`

func runConfig(args []string, stdout, stderr io.Writer) int {
	fs, flags := newFlagSet("config")
	check := fs.Bool("check", false, "only check the config files; exit 1 if one has an error")
	cwd := fs.String("cd", "", "the project folder `DIR` whose .agent-ls/config.toml counts (default: the current directory)")
	importCodex := fs.Bool("import-codex", false, "write an agent-ls config file from Codex's configuration")
	codexHome := fs.String("codex-home", "", "Codex's folder `DIR` for --import-codex (default $CODEX_HOME or ~/.codex)")
	output := fs.String("output", "", "where --import-codex writes: a `FILE`, or - for stdout (default: the user config file)")
	res, code, done := parseSettings(fs, flags, args, configUsage, stdout, stderr)
	if done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, configUsage, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if *importCodex {
		return runImportCodex(*codexHome, cmp.Or(*output, res.userFile), stdout, stderr)
	}
	project := *cwd
	if project == "" {
		project, _ = os.Getwd()
	} else if dir, err := execDir(project); err != nil {
		return usageError(stderr, configUsage, err)
	} else {
		project = dir
	}
	s, probs := res.resolve(project, nil)
	if *check {
		// exec -p NAME would run with any profile: check them all.
		probs = append(probs, profileProblems(res, project, s, probs)...)
	}
	errs := 0
	for _, p := range probs {
		kind := "error"
		if p.Ignored {
			kind = "warning"
		} else {
			errs++
		}
		// A problem quotes the file (a project's own config.toml too):
		// escaped, so a value cannot act on the terminal.
		fmt.Fprintf(stderr, "%s: %s\n", kind, textcut.Visible(p.String()))
	}
	if *check {
		if errs > 0 {
			fmt.Fprintf(stderr, "agent-ls config: %d error(s)\n", errs)
			return 1
		}
		fmt.Fprintf(stdout, "agent-ls config: no errors (%s)\n", filesRead(s))
		return 0
	}
	fmt.Fprintf(stdout, "# agent-ls configuration for %s\n# files read: %s\n", project, filesRead(s))
	if err := s.Print(stdout); err != nil {
		fmt.Fprintf(stderr, "agent-ls config: %v\n", err)
		return 1
	}
	if line := apiKeyLine(s); line != "" {
		fmt.Fprintf(stdout, "# %s\n", line)
	}
	if errs > 0 {
		return 1
	}
	return 0
}

// profileProblems are the problems that choosing each other profile of
// the user config (-p NAME) would bring, beyond those of s, the settings
// resolved with the profile in force (known, their problems).
func profileProblems(res *resolver, project string, s Settings, known []config.Problem) []config.Problem {
	seen := map[string]bool{}
	for _, p := range known {
		seen[p.String()] = true
	}
	var probs []config.Problem
	for _, name := range userProfiles(res.userFile) {
		if name == s.Profile {
			continue
		}
		flags := *res.flags
		flags.layer.Tree = maps.Clone(flags.layer.Tree)
		flags.layer.KeySources = maps.Clone(flags.layer.KeySources)
		flags.layer.Set("profile", name, "-p "+name)
		r := &resolver{userFile: res.userFile, env: res.env, flags: &flags}
		_, more := r.resolve(project, nil)
		for _, p := range more {
			if !seen[p.String()] {
				seen[p.String()] = true
				probs = append(probs, p)
			}
		}
	}
	return probs
}

// apiKeyLine says where the API key of the provider in use comes from
// and whether it is set; "" when the provider names no variable. The
// openai provider pointed at a server on this machine (Ollama,
// llama.cpp) needs none, and is not warned about.
func apiKeyLine(s Settings) string {
	k := s.Provider.EnvKey
	switch {
	case k == "":
		return ""
	case s.modelConfig().APIKey != "":
		return fmt.Sprintf("the API key of provider %q comes from $%s, which is set", s.ModelProvider, k)
	case s.ModelProvider == config.ProviderOpenAI && isLoopbackURL(s.Provider.BaseURL):
		return fmt.Sprintf("the API key of provider %q ($%s) is not needed: its base URL %s is a server on this machine", s.ModelProvider, k, s.Provider.BaseURL)
	}
	return fmt.Sprintf("the API key of provider %q comes from $%s, which is NOT set", s.ModelProvider, k)
}

// isLoopbackURL reports whether raw is a URL of this machine: localhost
// or a loopback address.
func isLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// userProfiles are the names of the [profiles.NAME] tables of the user
// config file (none when it cannot be read: its problems are told).
func userProfiles(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	tree, _ := config.Parse(data, path)
	profiles, _ := tree["profiles"].(map[string]any)
	return slices.Sorted(maps.Keys(profiles))
}

func filesRead(s Settings) string {
	if len(s.Files) == 0 {
		return "none"
	}
	return strings.Join(s.Files, ", ")
}

// runImportCodex carries Codex's configuration over to output.
func runImportCodex(home, output string, stdout, stderr io.Writer) int {
	if home == "" {
		home = os.Getenv("CODEX_HOME")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			fmt.Fprintf(stderr, "agent-ls config: no home folder to find ~/.codex in; give --codex-home\n")
			return 1
		}
		home = filepath.Join(h, ".codex")
	}
	imp, err := config.ImportCodex(home)
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls config: import from %s: %v\n", home, err)
		return 1
	}
	if len(imp.Files) == 0 {
		fmt.Fprintf(stderr, "agent-ls config: no Codex configuration in %s\n", home)
		return 1
	}
	for _, s := range imp.Skipped {
		fmt.Fprintf(stderr, "not carried over: %s\n", s)
	}
	if output == "-" {
		_, err = stdout.Write(imp.TOML)
	} else {
		err = writeNew(output, imp.TOML)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls config: %v\n", err)
		return 1
	}
	if output != "-" {
		fmt.Fprintf(stdout, "wrote %s from %s (%d key(s) not carried over); check it with: agent-ls config --check\n", output, strings.Join(imp.Files, ", "), len(imp.Skipped))
	}
	return 0
}

// writeNew writes a file that must not exist yet, private to the user (it
// may name where keys are kept).
func writeNew(path string, data []byte) error {
	if path == "" {
		return errors.New("no user config file to write (no home folder); give --output")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s exists already; move it away or give --output", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

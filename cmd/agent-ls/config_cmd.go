package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
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

Flags:
`

func runConfig(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var flags cmdFlags
	flags.register(fs)
	check := fs.Bool("check", false, "only check the config files; exit 1 if one has an error")
	cwd := fs.String("cd", "", "the project `folder` whose .agent-ls/config.toml counts (default: the current directory)")
	fs.Usage = func() { fmt.Fprint(stderr, configUsage); fs.PrintDefaults() }
	res, code, done := parseSettings(fs, &flags, args, configUsage, stderr)
	if done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, configUsage, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
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
	errs := 0
	for _, p := range probs {
		kind := "error"
		if p.Ignored {
			kind = "warning"
		} else {
			errs++
		}
		fmt.Fprintf(stderr, "%s: %s\n", kind, p)
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
	if k := s.Provider.EnvKey; k != "" {
		state := "is set"
		if s.APIKey == "" {
			state = "is NOT set"
		}
		fmt.Fprintf(stdout, "# the API key of provider %q comes from $%s, which %s\n", s.ModelProvider, k, state)
	}
	if errs > 0 {
		return 1
	}
	return 0
}

func filesRead(s Settings) string {
	if len(s.Files) == 0 {
		return "none"
	}
	return strings.Join(s.Files, ", ")
}

// Package app is agent-ls, the program: its subcommands (serve, acp,
// exec, demo, sandbox, config, sessions, rewind, mcp list, version), their flags
// and usage texts, the settings they resolve and the composition root
// that turns the settings into what the agent runs with. cmd/agent-ls is
// main over it, and gives it the version and the command line (Main).
//
// The flags live here, beside the settings, because they are a layer of
// them: each writes its config key with its source (--model, -c), the
// environment's layer is checked only where no flag overrides it, and
// exec's --full-auto and --dangerously-bypass-sandbox set keys unless a
// flag did and are checked against the resolved sandbox mode.
//
// Settings come from layers (internal/config: defaults, config files, a
// profile, the environment, the editor's settings, flags) resolved in
// settings.go (flags.go reads the flags and the environment), and one
// composition root (root.go) turns them into the model clients, the
// tool registry, the MCP servers and the agent managers that serve, acp
// and exec run; Settings.agentDefaults is the one mapping of settings to
// what a new session starts with (agent.Defaults). serve.go and acp.go
// wire the two protocol servers, over one agent per connection
// (editor_agent.go, sessions.go; acp_agent.go adds ACP's session types
// and its client's MCP servers); exec.go runs one turn with the terminal
// front end of term.go. The demo is the sub-package demo.
//
// The demo drives the real server with the scriptable editor
// (internal/editor) and the fake model server (internal/model/fakemodel).
// Those are linked into agent-ls for the demo alone: only the demo
// sub-package imports them, nothing else agent-ls links does, and no
// test-only package (testing, httptest, internal/proctest,
// internal/testenv, mcp-go) is linked; cmd/agent-ls's
// TestDemoAloneLinksTestEquipment checks it.
package app

import (
	"fmt"
	"io"
)

// version is agent-ls's version, as Main is given it.
var version = "dev"

const usage = `agent-ls: a coding agent that runs as a language server

Usage: agent-ls [COMMAND] [flags] [ARGS]

Commands:
  serve [--stdio]        run the language server on stdin/stdout; editors
                         start this, and it runs when no command is given
  acp                    serve the agent over the Agent Client Protocol on
                         stdin/stdout (Zed, JetBrains, codecompanion)
  exec PROMPT            run one turn in the current directory; --resume ID
                         or --last goes on with a kept session
  sessions               list the kept sessions (--prune DAYS deletes old
                         ones)
  rewind [TURN]          take a session and its files back to before a turn
                         (default: the last)
  demo                   run an offline, scripted demo end to end
  config                 show the configuration and where each value comes
                         from
  config --check         check the configuration as exec and serve read it
  config --import-codex  write an agent-ls config file from Codex's
  sandbox -- CMD...      run a command in the kernel sandbox
  sandbox --explain      show what the sandbox enforces on this machine
  mcp list               start the configured MCP servers and show their
                         state and tools
  mcp login|logout NAME  authorize agent-ls for a url MCP server with OAuth,
                         or forget its token
  version [--json]       print the version
  help [COMMAND]         show a command's help (or: agent-ls COMMAND --help)

Settings come from ~/.config/agent-ls/config.toml ($XDG_CONFIG_HOME), the
project's .agent-ls/config.toml (narrowing only), a profile (--profile),
the environment, the editor's settings and flags (-c key=value for any
config key), each over the ones before. The environment:
  OPENAI_API_KEY      API key of the openai provider (a provider's env_key
                      names its own)
  OPENAI_BASE_URL     base URL of the openai provider, e.g. a company proxy
  OPENAI_ORGANIZATION, OPENAI_PROJECT
                      the openai provider's OpenAI-Organization and
                      OpenAI-Project headers
  AGENT_LS_MODEL      model name (flag --model)
  AGENT_LS_PROFILE    the profile to use (flag --profile)
  AGENT_LS_WIRE_API   responses or chat, for the provider in use (flag
                      --wire-api)
  AGENT_LS_STREAM_IDLE_TIMEOUT_MS
                      retry a model stream silent this long: milliseconds,
                      or a duration with its unit such as 90s (flag
                      --stream-idle-timeout)
`

// Main runs agent-ls, version v, with the command line args (without the
// program's name) and returns its exit status.
func Main(v string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if v != "" {
		version = v
	}
	return run(args, stdin, stdout, stderr)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "--version", a == "-h", a == "--help", a == "-help":
			cmd, args = a, args[1:]
		case a != "" && a[0] != '-':
			cmd, args = a, args[1:]
		}
	}
	switch cmd {
	case "serve":
		return runServe(args, stdin, stdout, stderr)
	case "acp":
		return runACP(args, stdin, stdout, stderr)
	case "exec":
		return runExec(args, stdin, stdout, stderr)
	case "demo":
		return runDemo(args, stdout, stderr)
	case "sandbox":
		return runSandbox(args, stdout, stderr)
	case "config":
		return runConfig(args, stdout, stderr)
	case "sessions":
		return runSessions(args, stdout, stderr)
	case "rewind":
		return runRewind(args, stdin, stdout, stderr)
	case "mcp":
		return runMCP(args, stdout, stderr)
	case "version", "--version":
		return runVersion(args, stdout, stderr)
	case "help", "-h", "--help", "-help":
		return runHelp(args, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "agent-ls: unknown command %q\nUsage: agent-ls [COMMAND] [flags] [ARGS]\nRun 'agent-ls help' for the commands.\n", cmd)
		return 2
	}
}

// runHelp is agent-ls help [COMMAND]: the overview, or the command's
// help, on stdout.
func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if len(args) > 2 || (len(args) == 2 && args[0] != "mcp") {
		fmt.Fprintf(stderr, "agent-ls help: give one command, got %q\nUsage: agent-ls help [COMMAND]\n", args)
		return 2
	}
	switch args[0] {
	case "serve", "acp", "exec", "demo", "sandbox", "config", "sessions", "rewind", "version":
		return run([]string{args[0], "--help"}, nil, stdout, stderr)
	case "mcp":
		sub := "list"
		if len(args) == 2 {
			sub = args[1]
		}
		return run([]string{"mcp", sub, "--help"}, nil, stdout, stderr)
	}
	fmt.Fprintf(stderr, "agent-ls help: no command %q\nUsage: agent-ls help [COMMAND]\nRun 'agent-ls help' for the commands.\n", args[0])
	return 2
}

package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/mcp"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

const mcpLoginUsage = `Usage: agent-ls mcp login NAME [--timeout DURATION] [flags]
       agent-ls mcp logout NAME

login authorizes agent-ls for the url MCP server NAME of the configuration
with OAuth (MCP's authorization: the server's protected resource metadata,
its authorization server's metadata, PKCE, and a client registered
dynamically, or the one oauth_client_id and oauth_client_secret_env_var
give). It prints the authorization URL and opens it in the browser when
stdout is a terminal, waits for the browser's redirect on 127.0.0.1, and
stores the token in $XDG_STATE_HOME/agent-ls/mcp-auth (default
~/.local/state), 0600, for that server name and url. Sessions then send it,
and refresh it when it expires. Only this command opens a browser: a
session whose server asks for authorization shows it as needsLogin.

logout removes the stored tokens of NAME.

Flags:
`

func runMCPLogin(args []string, stdout, stderr io.Writer) int {
	fs, flags := newFlagSet("mcp login")
	timeout := durationFlag(fs, "timeout", mcp.DefaultLoginTimeout, "how long to wait for the browser, a `DURATION` with its unit (e.g. 10m)")
	// The name may come before the flags, as it is usually typed.
	var names []string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		names, args = args[:1], args[1:]
	}
	res, code, done := parseSettings(fs, flags, args, mcpLoginUsage, stdout, stderr)
	if done {
		return code
	}
	if names = append(names, fs.Args()...); len(names) != 1 {
		return usageError(stderr, mcpLoginUsage, errors.New("want the name of one MCP server"))
	}
	name := names[0]
	s, _ := res.resolve("", nil)
	m, ok := s.MCPServers[name]
	if !ok || s.Resolved == nil {
		fmt.Fprintf(stderr, "agent-ls mcp login: no MCP server %q is configured ([mcp_servers.%s])\n", textcut.VisibleLine(name), textcut.VisibleLine(name))
		return 1
	}
	cfg, problem := mcpServerConfig(name, m)
	switch {
	case m.Command != "":
		fmt.Fprintf(stderr, "agent-ls mcp login: MCP server %q is a command (stdio) server: OAuth login is for url servers\n", name)
		return 1
	case problem != "":
		fmt.Fprintf(stderr, "agent-ls mcp login: %s\n", textcut.Visible(problem))
		return 1
	case m.OAuthClientSecretEnvVar != "" && cfg.OAuthClientSecret == "":
		fmt.Fprintf(stderr, "agent-ls mcp login: MCP server %q: its oauth_client_secret_env_var %s is not set\n", name, m.OAuthClientSecretEnvVar)
		return 1
	}
	dir := mcpAuthDir()
	if dir == "" {
		fmt.Fprintln(stderr, "agent-ls mcp login: no state folder to keep the token in (no home folder, no XDG_STATE_HOME)")
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := mcp.LoginOptions{AuthDir: dir, Out: stdout, Timeout: *timeout, ClientVersion: version}
	if isTerminal(stdout) {
		opts.OpenBrowser = openBrowser
	}
	got, err := mcp.Login(ctx, cfg, opts)
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls mcp login: %s\n", textcut.Visible(err.Error()))
		return 1
	}
	how := "with agent-ls's client registered by the server"
	if !got.Registered {
		how = "with the client of oauth_client_id"
	}
	fmt.Fprintf(stdout, "Logged in to %s (%s); the token is in %s.\n", name, how, got.File)
	log, closeLog, err := res.logger(stderr)
	if err != nil {
		return usageError(stderr, mcpLoginUsage, err)
	}
	defer closeLog()
	return checkMCPLogin(ctx, cfg, log, stdout, stderr)
}

// checkMCPLogin connects to the server with the stored token, as a
// session does, and says what it offers.
func checkMCPLogin(ctx context.Context, cfg mcp.ServerConfig, log *slog.Logger, stdout, stderr io.Writer) int {
	reg, err := tools.NewRegistry()
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls mcp login: %v\n", err)
		return 1
	}
	set, err := mcp.NewSet([]mcp.ServerConfig{cfg}, mcp.Options{Registry: reg, Logger: log, ClientVersion: version, AuthDir: mcpAuthDir()})
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls mcp login: %v\n", err)
		return 1
	}
	defer set.Close()
	set.Start()
	set.Ready(ctx)
	st := set.Status()[0]
	if st.State != mcp.StateReady {
		fmt.Fprintf(stderr, "agent-ls mcp login: the server is %s with the new token: %s\n", st.State, textcut.Visible(st.Error))
		return 1
	}
	fmt.Fprintf(stdout, "%s: ready, %d tools.\n", textcut.VisibleLine(cfg.Name), len(st.Tools))
	return 0
}

func runMCPLogout(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprint(stdout, mcpLoginUsage)
		return 0
	}
	if len(args) != 1 {
		return usageError(stderr, mcpLoginUsage, errors.New("want the name of one MCP server"))
	}
	name := args[0]
	dir := mcpAuthDir()
	removed, err := mcp.TokenStore{Dir: dir}.Remove(name)
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls mcp logout: %v\n", err)
		return 1
	}
	if len(removed) == 0 {
		fmt.Fprintf(stdout, "No token is stored for %s.\n", textcut.VisibleLine(name))
		return 0
	}
	for _, f := range removed {
		fmt.Fprintf(stdout, "Removed the token of %s (%s).\n", textcut.VisibleLine(name), f)
	}
	return 0
}

// openBrowser opens url with the desktop's opener (xdg-open, or open on
// macOS), not waiting for it.
func openBrowser(_ context.Context, url string) error {
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	path, err := exec.LookPath(opener)
	if err != nil {
		return fmt.Errorf("no %s", opener)
	}
	cmd := exec.Command(path, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaps the opener, which returns at once
	return nil
}

package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/lsp"
	"github.com/agent-ls/agent-ls/internal/mcp"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// mcpServers turns the config's [mcp_servers.<name>] tables into the
// servers to start, sorted by name. Servers turned off (enabled = false)
// are named in off; a server that cannot start as configured (its bearer
// token variable is unset) is left out with a problem for the user.
func (s *Settings) mcpServers() (cfgs []mcp.ServerConfig, off []string, problems []string) {
	if s.Resolved == nil {
		return nil, nil, nil
	}
	for _, name := range sortedNames(s.MCPServers) {
		m := s.MCPServers[name]
		if m.Enabled != nil && !*m.Enabled {
			off = append(off, name)
			continue
		}
		c := mcp.ServerConfig{
			Name: name, Command: m.Command, Args: m.Args, Env: m.Env, Cwd: m.Cwd,
			URL: m.URL, HTTPHeaders: m.HTTPHeaders,
			StartupTimeout: seconds(m.StartupTimeoutSec), ToolTimeout: seconds(m.ToolTimeoutSec),
			EnabledTools: m.EnabledTools, DisabledTools: m.DisabledTools,
			AutoApprove: m.Approval == config.MCPApprovalAuto,
		}
		if v := m.BearerTokenEnvVar; v != "" {
			c.BearerToken = strings.TrimSpace(os.Getenv(v))
			if c.BearerToken == "" {
				problems = append(problems, fmt.Sprintf("MCP server %q is not started: its bearer_token_env_var %s is not set", name, v))
				continue
			}
		}
		if err := c.Validate(); err != nil {
			problems = append(problems, err.Error())
			continue
		}
		cfgs = append(cfgs, c)
	}
	return cfgs, off, problems
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// seconds is a timeout of the config (seconds, fractions allowed); 0 for
// none, which takes the default.
func seconds(v *float64) time.Duration {
	if v == nil || *v <= 0 || math.IsNaN(*v) {
		return 0
	}
	return time.Duration(*v * float64(time.Second))
}

func newMCPSet(s Settings, reg *tools.Registry, notices *mcp.Notices, log *slog.Logger) (*mcp.Set, error) {
	cfgs, _, problems := s.mcpServers()
	for _, p := range problems {
		notices.Add("agent-ls: " + p)
	}
	if len(cfgs) == 0 {
		return nil, nil
	}
	return mcp.NewSet(cfgs, mcp.Options{
		Registry:      reg,
		Logger:        log,
		ClientVersion: version,
		Failed: func(server string, err error) {
			notices.Add(fmt.Sprintf("agent-ls: MCP server %s: %v", server, err))
		},
	})
}

// lockedWriter serialises the writes of several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// mcpStatuses is the servers' status as the language server shows it.
func mcpStatuses(set *mcp.Set) []lsp.MCPServer {
	if set.Empty() {
		return []lsp.MCPServer{}
	}
	set.Start()
	var out []lsp.MCPServer
	for _, st := range set.Status() {
		out = append(out, lsp.MCPServer{Name: st.Name, State: string(st.State), Error: st.Error, Tools: st.Tools, StderrTail: st.StderrTail})
	}
	return out
}

const mcpUsage = `Usage: agent-ls mcp list [--json] [flags]

Starts the MCP servers of the configuration ([mcp_servers.<name>] in the
user config), waits for each (up to its startup_timeout_sec) and prints
its state (ready or failed, with the reason), the tools it offers, and for
a command the last lines it wrote to stderr. Servers turned off (enabled =
false) are listed as disabled. Exits 1 if a server failed.

Flags:
`

// mcpListEntry is a server as mcp list --json prints it.
type mcpListEntry struct {
	Name       string   `json:"name"`
	State      string   `json:"state"`
	Error      string   `json:"error,omitempty"`
	Tools      []string `json:"tools"`
	StderrTail []string `json:"stderrTail,omitempty"`
}

func runMCP(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "list" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprint(stdout, mcpUsage)
			return 0
		}
		return usageError(stderr, mcpUsage, errors.New("want a subcommand: list"))
	}
	fs := flag.NewFlagSet("mcp list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var flags cmdFlags
	flags.register(fs)
	jsonOut := fs.Bool("json", false, "print the servers as JSON")
	fs.Usage = func() { fmt.Fprint(stderr, mcpUsage); fs.PrintDefaults() }
	res, code, done := parseSettings(fs, &flags, args[1:], mcpUsage, stderr)
	if done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, mcpUsage, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	s, probs := res.resolve("", nil)
	for _, p := range probs {
		fmt.Fprintf(stderr, "agent-ls mcp: %s\n", textcut.Visible(p.String()))
	}
	ls := res.logSettings()
	log, closeLog, err := ls.logger(stderr)
	if err != nil {
		return usageError(stderr, mcpUsage, err)
	}
	defer closeLog()
	reg, err := tools.NewRegistry()
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls mcp: %v\n", err)
		return 1
	}
	var notices mcp.Notices
	set, err := newMCPSet(s, reg, &notices, log)
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls mcp: %v\n", err)
		return 1
	}
	defer set.Close()
	// The problems that kept a server from starting are printed here;
	// failures to start are in the list.
	notices.Listen(func(msg string) {
		if !strings.HasPrefix(msg, "agent-ls: MCP server ") || strings.Contains(msg, "is not started") {
			fmt.Fprintf(stderr, "agent-ls mcp: %s\n", textcut.Visible(strings.TrimPrefix(msg, "agent-ls: ")))
		}
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	set.Start()
	set.Ready(ctx)

	_, off, _ := s.mcpServers()
	var list []mcpListEntry
	failed := false
	for _, st := range set.Status() {
		list = append(list, mcpListEntry{Name: st.Name, State: string(st.State), Error: st.Error, Tools: st.Tools, StderrTail: st.StderrTail})
		failed = failed || st.State != mcp.StateReady
	}
	for _, name := range off {
		list = append(list, mcpListEntry{Name: name, State: "disabled", Tools: []string{}})
	}
	slices.SortFunc(list, func(a, b mcpListEntry) int { return strings.Compare(a.Name, b.Name) })
	if *jsonOut {
		if list == nil {
			list = []mcpListEntry{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(list)
	} else {
		printMCPList(stdout, list, s)
	}
	if failed {
		return 1
	}
	return 0
}

func printMCPList(w io.Writer, list []mcpListEntry, s Settings) {
	if len(list) == 0 {
		fmt.Fprintln(w, "No MCP servers are configured ([mcp_servers.<name>] in "+cmp.Or(config.UserFile(), "the user config")+").")
		return
	}
	for _, e := range list {
		// A server's tool names, its errors and its stderr are its own
		// words: escaped, like the rest, so none can act on the terminal.
		m := s.MCPServers[e.Name]
		where := "url " + textcut.VisibleLine(m.URL)
		if m.Command != "" {
			where = "command " + agent.QuoteCommand(append([]string{m.Command}, m.Args...))
		}
		name := textcut.VisibleLine(e.Name)
		switch e.State {
		case "disabled":
			fmt.Fprintf(w, "%s: disabled (enabled = false; %s)\n", name, where)
			continue
		case string(mcp.StateFailed):
			fmt.Fprintf(w, "%s: failed (%s)\n  error: %s\n", name, where, textcut.Visible(e.Error))
		default:
			fmt.Fprintf(w, "%s: %s (%s)\n", name, e.State, where)
		}
		if len(e.Tools) > 0 {
			tools := make([]string, len(e.Tools))
			for i, t := range e.Tools {
				tools[i] = textcut.VisibleLine(t)
			}
			fmt.Fprintf(w, "  tools (%d): %s\n", len(e.Tools), strings.Join(tools, ", "))
		} else if e.State == string(mcp.StateReady) {
			fmt.Fprintln(w, "  tools: none")
		}
		if len(e.StderrTail) > 0 && e.State != string(mcp.StateReady) {
			fmt.Fprintln(w, "  stderr:")
			for _, l := range e.StderrTail {
				fmt.Fprintf(w, "    %s\n", textcut.VisibleLine(l))
			}
		}
	}
}

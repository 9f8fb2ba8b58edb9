package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/mcp"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

const mcpUsage = `Usage: agent-ls mcp list [--json] [flags]
       agent-ls mcp login NAME | logout NAME (see agent-ls mcp login --help)

Starts the MCP servers of the configuration ([mcp_servers.<name>] in the
user config), waits for each (up to its startup_timeout_sec) and prints
its state (ready, failed with the reason, or needsLogin: a url server
that asks for an OAuth login), the tools it offers, and for
a command the last lines it wrote to stderr. Servers turned off (enabled =
false) are listed as disabled. Exits 1 if a server failed.

Flags:
`

// mcpListEntry is a server as mcp list --json prints it.
type mcpListEntry struct {
	Name       string   `json:"name"`
	State      string   `json:"state"`
	Transport  string   `json:"transport,omitempty"`
	Error      string   `json:"error,omitempty"`
	Tools      []string `json:"tools"`
	StderrTail []string `json:"stderrTail,omitempty"`
}

func runMCP(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "login" {
		return runMCPLogin(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "logout" {
		return runMCPLogout(args[1:], stdout, stderr)
	}
	if len(args) == 0 || args[0] != "list" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			return runMCP([]string{"list", "--help"}, stdout, stderr)
		}
		return usageError(stderr, mcpUsage, errors.New("want a subcommand: list, login or logout"))
	}
	fs, flags := newFlagSet("mcp list")
	jsonOut := fs.Bool("json", false, "print the servers as JSON")
	res, code, done := parseSettings(fs, flags, args[1:], mcpUsage, stdout, stderr)
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
	log, closeLog, err := res.logger(stderr)
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
	set, err := newMCPSet(s, reg, &notices, log, nil)
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
	list, failed := mcpList(set, off)
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

// mcpList is the servers of set as they are now, with those turned off
// (off) listed as disabled, sorted by name; failed is true when a server
// is not ready.
func mcpList(set *mcp.Set, off []string) (list []mcpListEntry, failed bool) {
	for _, st := range set.Status() {
		list = append(list, mcpListEntry{Name: st.Name, State: string(st.State), Transport: st.Transport, Error: st.Error, Tools: st.Tools, StderrTail: st.StderrTail})
		failed = failed || st.State != mcp.StateReady
	}
	for _, name := range off {
		list = append(list, mcpListEntry{Name: name, State: "disabled", Tools: []string{}})
	}
	slices.SortFunc(list, func(a, b mcpListEntry) int { return strings.Compare(a.Name, b.Name) })
	return list, failed
}

// printMCPList prints the list for people.
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
		if e.Transport != "" {
			where += ", transport " + e.Transport
		}
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
		case string(mcp.StateNeedsLogin):
			// The error ends with the hint: run `agent-ls mcp login NAME`.
			fmt.Fprintf(w, "%s: needsLogin (%s)\n  %s\n", name, where, textcut.Visible(e.Error))
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

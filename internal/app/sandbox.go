package app

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// runSandbox is the sandbox helper: it confines itself and execs the
// command in place (see internal/sandbox). With --explain it also says
// what the user's config makes of the network of agent-ls's commands.
func runSandbox(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			sandbox.Help(stdout, printFlags)
			return 0
		}
	}
	code := sandbox.Main(args)
	if code == 0 && slices.Contains(args, "--explain") {
		var l config.Loader
		in := config.Inputs{UserFile: config.UserFile()}
		if cwd, err := os.Getwd(); err == nil {
			in.ProjectRoot = cwd
		}
		if res, _ := l.Load(in); res != nil {
			explainNetwork(stdout, res.SandboxWorkspaceWrite)
		}
	}
	return code
}

// explainNetwork says what the network setting of the config gives the
// agent's workspace-write commands.
func explainNetwork(w io.Writer, sw config.SandboxWorkspaceWrite) {
	mode := sw.NetworkMode()
	fmt.Fprintf(w, "network of agent-ls's workspace-write commands (config [sandbox_workspace_write] network): %s\n", mode)
	switch mode {
	case policy.NetworkOff:
		fmt.Fprintln(w, "         none: only the session's own loopback")
	case policy.NetworkOn:
		fmt.Fprintln(w, "         the host's whole network, unasked")
	default:
		fmt.Fprintln(w, "         through agent-ls's proxy only (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), each new host asked;")
		fmt.Fprintln(w, "         under approval policy never and in unattended runs only allowed_domains pass;")
		fmt.Fprintln(w, "         this machine's and local networks' services only by an exact host:port entry or answer")
	}
	fmt.Fprintf(w, "allowed_domains: %s\n", listOrNone(sw.AllowedDomains))
	fmt.Fprintf(w, "denied_domains: %s\n", listOrNone(sw.DeniedDomains))
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}

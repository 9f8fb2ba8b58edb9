package app

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/agent-ls/agent-ls/internal/lsp"
)

const versionUsage = `Usage: agent-ls version [--json]

Prints agent-ls's version. With --json it prints one JSON object:
version, commit (the git commit it was built from), date (that commit's
date, so that a rebuild prints the same), go (the Go version it was built
with) and protocol (the version of the protocol editors speak with it,
"MAJOR.MINOR", the one initialize answers as experimental.agent).

Flags:
`

// The commit agent-ls was built from and its date (RFC 3339), set by
// make with -ldflags -X; without them the build's VCS stamp is used.
var buildCommit, buildDate string

// versionInfo is what agent-ls version --json prints.
type versionInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Go       string `json:"go"`
	Protocol string `json:"protocol"`
}

// buildVersion is this binary's versionInfo: the commit and its date come
// from the build's VCS stamp, empty when it has none.
func buildVersion() versionInfo {
	v := versionInfo{Version: version, Commit: buildCommit, Date: buildDate, Go: runtime.Version(), Protocol: protocolVersion()}
	if bi, ok := debug.ReadBuildInfo(); ok && v.Commit == "" {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.time":
				v.Date = s.Value
			}
		}
	}
	return v
}

// protocolVersion is the protocol's "MAJOR.MINOR".
func protocolVersion() string {
	return fmt.Sprintf("%d.%d", lsp.ProtocolVersion, lsp.ProtocolMinor)
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print version, commit, date, go and protocol as one JSON object")
	if code, done := parseFlags(fs, args, versionUsage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, versionUsage, fmt.Errorf("version takes no arguments, got %q", fs.Arg(0)))
	}
	v := buildVersion()
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(v); err != nil {
			return 1
		}
		return 0
	}
	fmt.Fprintf(stdout, "agent-ls %s\n", v.Version)
	return 0
}

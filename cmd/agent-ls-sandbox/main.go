// Command agent-ls-sandbox is the sandbox helper alone: the same as
// `agent-ls sandbox`, in a binary small enough to start in a fraction of
// the time. agent-ls runs every sandboxed command through a helper, so the
// helper's start-up is paid per command; when this binary sits next to
// agent-ls, agent-ls uses it.
//
//	agent-ls-sandbox sandbox [--mode MODE] [--cwd DIR] [--writable DIR]... [--network] -- CMD ARGS...
package main

import (
	"fmt"
	"os"

	"github.com/agent-ls/agent-ls/internal/sandbox"
)

func main() {
	// The argument vector has the shape of `agent-ls sandbox ...`, which
	// the helper's pre-start hook relies on.
	if len(os.Args) < 2 || os.Args[1] != "sandbox" {
		fmt.Fprintln(os.Stderr, "usage: agent-ls-sandbox sandbox [--mode MODE] [--cwd DIR] [--writable DIR]... [--network] [--explain] -- CMD ARGS...")
		os.Exit(sandbox.ExitSetupFailed)
	}
	os.Exit(sandbox.Main(os.Args[2:]))
}

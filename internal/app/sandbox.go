package app

import "github.com/agent-ls/agent-ls/internal/sandbox"

// runSandbox is the sandbox helper: it confines itself and execs the
// command in place (see internal/sandbox).
func runSandbox(args []string) int { return sandbox.Main(args) }

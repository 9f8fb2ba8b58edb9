package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/agent-ls/agent-ls/internal/app/demo"
)

const demoUsage = `Usage: agent-ls demo [--pace DURATION]

Runs an offline, scripted session end to end: copies a small sample project
into a temporary folder, starts the agent-ls server, drives it over stdio
exactly as an editor would (a code action on a selection, then the turn), with
a built-in scripted model, and shows what an editor user sees. Needs no
network and no API key, and leaves nothing behind.

Flags:
`

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	pace := durationFlagFrom(fs, "pace", 12*time.Millisecond, "pause between streamed pieces of the scripted answer, a `DURATION` with its unit (e.g. 50ms; 0 for none)", true)
	if code, done := parseFlags(fs, args, demoUsage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, demoUsage, fmt.Errorf("demo takes no arguments, got %q", fs.Arg(0)))
	}
	// Long enough for a first sandboxed Go build, which fills agent-ls's
	// own build cache (the user's is read-only in the sandbox).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := demo.Run(ctx, stdout, *pace); err != nil {
		fmt.Fprintf(stderr, "agent-ls demo: %v\n", err)
		return 1
	}
	return 0
}

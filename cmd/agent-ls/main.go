// Command agent-ls is a coding agent that runs as a language server.
//
// Editors start it over stdio (`agent-ls`, or `agent-ls serve --stdio`);
// `agent-ls acp` serves the same agent over the Agent Client Protocol;
// `agent-ls exec PROMPT` runs one turn from the terminal; `agent-ls demo`
// shows an offline, scripted session end to end. The program is
// internal/app: this is its main.
package main

import (
	"os"

	"github.com/agent-ls/agent-ls/internal/app"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(app.Main(version, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestExecElicitationDeclinedUnattended: under exec --yes, the reference
// server's form (offered only to a client that advertises elicitation)
// is declined: stderr says so, the server hears decline, and the model
// reads the server's result and why agent-ls declined.
func TestExecElicitationDeclinedUnattended(t *testing.T) {
	everything := everythingServer(t)
	configEnv := writeConfig(t, fmt.Sprintf(`[mcp_servers.everything]
command = %q
args = ["stdio"]
startup_timeout_sec = 60
enabled_tools = ["trigger-elicitation-request"]
approval = "auto"
`, everything))
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "everything__trigger-elicitation-request", `{}`)),
		fakemodel.Say("done"))
	defer m.Close()
	cmd := execCmd(t, m, "--yes", "--json", "ask me")
	cmd.Env = append(cmd.Env, configEnv)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	var output string
	for _, line := range strings.Split(out.String(), "\n") {
		var ev editor.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "toolResult" && ev.CallID == "c1" {
			output = ev.Output
		}
	}
	for _, want := range []string{"User declined to provide the requested information", `"action": "decline"`,
		"[agent-ls: the MCP server's question was declined: nobody is there to answer under --yes]"} {
		if !strings.Contains(output, want) {
			t.Errorf("the model read %q, without %q", output, want)
		}
	}
	if want := "agent-ls: declined a question of the MCP server everything (nobody is there to answer under --yes)"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errb.String())
	}
}

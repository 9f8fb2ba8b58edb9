package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// everythingServer is the command of the reference MCP server
// @modelcontextprotocol/server-everything, installed from
// internal/mcp/testdata/npm. The test skips without node.
func everythingServer(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the reference MCP servers from npm cannot run")
	}
	path, err := filepath.Abs(filepath.Join("..", "..", "internal", "mcp", "testdata", "npm", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: run `make mcp-test-servers`", path)
	}
	return path
}

// mcpConfig is a user config with the everything server (with extra
// lines in its table) and a server that exits at startup.
func mcpConfig(t *testing.T, everything string, extra ...string) string {
	return writeConfig(t, fmt.Sprintf(`[mcp_servers.everything]
command = %q
args = ["stdio"]
startup_timeout_sec = 60
enabled_tools = ["echo", "get-env", "toggle-simulated-logging"]
%s

[mcp_servers.broken]
command = "sh"
args = ["-c", "echo 'fatal: cannot open /nonexistent/db' >&2; exit 3"]

[mcp_servers.off]
command = "never-started"
enabled = false
`, everything, strings.Join(extra, "\n")))
}

// requestTools returns the names of the tools a model request offered.
func requestTools(t *testing.T, r *fakemodel.Request) []string {
	t.Helper()
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	return names
}

type mcpServerInfo struct {
	Name       string   `json:"name"`
	State      string   `json:"state"`
	Error      string   `json:"error"`
	Tools      []string `json:"tools"`
	StderrTail string   `json:"stderrTail"`
}

func (s *session) listMCPServers() map[string]mcpServerInfo {
	s.t.Helper()
	var res struct {
		Servers []mcpServerInfo `json:"servers"`
	}
	if err := s.ed.Request(s.ctx, "agent/listMcpServers", map[string]any{}, &res); err != nil {
		s.t.Fatalf("agent/listMcpServers: %v", err)
	}
	out := map[string]mcpServerInfo{}
	for _, m := range res.Servers {
		out[m.Name] = m
	}
	return out
}

// TestServeMCP drives the real server with the reference everything
// server configured: the first model request offers its tools, sorted;
// a read-only tool runs without asking, another asks once with allow
// always; events name the server; the server sees none of our
// environment; a server that exits at startup is shown once and listed
// as failed with its stderr.
func TestServeMCP(t *testing.T) {
	env := []string{mcpConfig(t, everythingServer(t)), "AGENT_LS_E2E_SECRET=hunter2"}
	var mu sync.Mutex
	var asked []map[string]any
	cfg := editor.Config{Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
		var p map[string]any
		json.Unmarshal(params, &p)
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		return map[string]string{"decision": "allowAlways"}, nil
	}}
	s := startWith(t, env, cfg, editor.Options{Events: true, Approvals: true},
		fakemodel.Answer(fakemodel.FunctionCall("c1", "everything__echo", `{"message":"hello from mcp"}`),
			fakemodel.FunctionCall("c2", "everything__get-env", `{}`)),
		fakemodel.Answer(fakemodel.FunctionCall("c3", "everything__toggle-simulated-logging", `{}`)),
		fakemodel.Answer(fakemodel.FunctionCall("c4", "everything__toggle-simulated-logging", `{}`)),
		fakemodel.Say("done"),
	)
	turn := s.startTurn(map[string]any{"prompt": "use the tools"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}

	reqs := s.model.Requests()
	names := requestTools(t, reqs[0])
	for _, want := range []string{"everything__echo", "everything__get-env", "everything__toggle-simulated-logging", "exec_command"} {
		if !slices.Contains(names, want) {
			t.Errorf("the first request does not offer %s: %q", want, names)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("tools not sorted by name: %q", names)
	}
	if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "broken__") || strings.HasPrefix(n, "off__") }) {
		t.Errorf("tools of a failed or disabled server offered: %q", names)
	}
	outputs := map[string]string{}
	for _, ev := range s.events(turn.TurnID) {
		switch ev.Type {
		case "toolCall":
			if ev.Server != "everything" || strings.Contains(ev.Tool, "__") {
				t.Errorf("toolCall %s names %q of %q", ev.CallID, ev.Tool, ev.Server)
			}
		case "toolResult":
			if ev.Server != "everything" {
				t.Errorf("toolResult %s of server %q", ev.CallID, ev.Server)
			}
			outputs[ev.CallID] = ev.Output
		}
	}
	if !strings.Contains(outputs["c1"], "hello from mcp") {
		t.Errorf("echo output %q", outputs["c1"])
	}
	for _, secret := range []string{"OPENAI_API_KEY", "hunter2", "AGENT_LS_E2E_SECRET"} {
		if strings.Contains(outputs["c2"], secret) {
			t.Errorf("the MCP server sees %s:\n%s", secret, outputs["c2"])
		}
	}
	mu.Lock()
	if len(asked) != 1 {
		t.Errorf("asked %d times, want once (echo and get-env are read-only; allow always covers the second toggle)", len(asked))
	} else if a := asked[0]; a["kind"] != "tool" || a["server"] != "everything" || a["tool"] != "toggle-simulated-logging" {
		t.Errorf("approval request %v", a)
	}
	mu.Unlock()

	list := s.listMCPServers()
	if ev := list["everything"]; ev.State != "ready" || !slices.Equal(ev.Tools, []string{"echo", "get-env", "toggle-simulated-logging"}) {
		t.Errorf("everything: %+v", ev)
	}
	br := list["broken"]
	if br.State != "failed" || !strings.Contains(br.Error, "exited at startup") || !strings.Contains(br.StderrTail, "fatal: cannot open /nonexistent/db") {
		t.Errorf("broken: %+v", br)
	}
	if _, ok := list["off"]; ok || len(list) != 2 {
		t.Errorf("servers %+v", list)
	}
	var shown []string
	for _, m := range s.ed.Messages() {
		if strings.Contains(m.Message, "MCP server broken") {
			shown = append(shown, m.Message)
		}
	}
	if len(shown) != 1 || !strings.Contains(shown[0], "exited at startup") {
		t.Errorf("messages about the broken server: %q", shown)
	}
}

// TestServeMCPStartsAfterInitialize: initialize does not wait for a
// server, which starts when asked for (here by agent/listMcpServers) and
// is listed as starting while it does.
func TestServeMCPStartsAfterInitialize(t *testing.T) {
	env := []string{writeConfig(t, `[mcp_servers.slow]
command = "sh"
args = ["-c", "sleep 600"]
startup_timeout_sec = 600
`)}
	s := start(t, env, fakemodel.Say("unused"))
	list := s.listMCPServers()
	if sl := list["slow"]; sl.State != "starting" || len(sl.Tools) != 0 {
		t.Errorf("slow: %+v", sl)
	}
}

// mcpExec runs `agent-ls exec ARGS... PROMPT` with the config env
// against a model that calls the everything server's echo and
// toggle-simulated-logging at once; it returns the outputs the model got,
// by call id, and stderr.
func mcpExec(t *testing.T, configEnv string, args ...string) (map[string]string, string) {
	t.Helper()
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "everything__echo", `{"message":"hi"}`),
			fakemodel.FunctionCall("c2", "everything__toggle-simulated-logging", `{}`)),
		fakemodel.Say("done"))
	defer m.Close()
	cmd := execCmd(t, m, append(args, "--json", "do it")...)
	cmd.Env = append(cmd.Env, configEnv)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	outputs := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		var ev editor.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "toolResult" {
			if ev.Server != "everything" {
				t.Errorf("toolResult %+v", ev)
			}
			outputs[ev.CallID] = ev.Output
		}
	}
	return outputs, errb.String()
}

// TestExecMCPUnattended: exec --yes runs the read-only tool and refuses
// the other, saying why, unless the server's approval is auto; the
// failure of a server at startup is on stderr.
func TestExecMCPUnattended(t *testing.T) {
	everything := everythingServer(t)
	out, stderr := mcpExec(t, mcpConfig(t, everything), "--yes")
	if !strings.Contains(out["c1"], "hi") {
		t.Errorf("echo: %q", out["c1"])
	}
	if !strings.HasPrefix(out["c2"], "refused: ") || !strings.Contains(out["c2"], `approval = "auto"`) {
		t.Errorf("toggle under --yes: %q", out["c2"])
	}
	if !strings.Contains(stderr, "agent-ls exec: MCP server broken: the server exited at startup") {
		t.Errorf("stderr:\n%s", stderr)
	}

	out, _ = mcpExec(t, mcpConfig(t, everything, `approval = "auto"`), "--yes")
	if strings.HasPrefix(out["c2"], "refused") || out["c2"] == "" {
		t.Errorf("toggle with approval = auto: %q", out["c2"])
	}
	out, _ = mcpExec(t, mcpConfig(t, everything), "--approval-policy", "never")
	if !strings.Contains(out["c2"], `the approval policy "never"`) {
		t.Errorf("toggle under never: %q", out["c2"])
	}
}

// TestMCPList: agent-ls mcp list starts the servers and prints each one's
// state, tools and stderr, and exits 1 when one failed.
func TestMCPList(t *testing.T) {
	env := mcpConfig(t, everythingServer(t))
	cmd := exec.Command(binary, "mcp", "list")
	cmd.Env = append(os.Environ(), env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go func() { <-ctx.Done(); cmd.Process.Kill() }()
	if code := exitCode(cmd.Run()); code != 1 {
		t.Errorf("exit %d, want 1 (a server failed); stderr:\n%s", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{
		"broken: failed (command sh -c ",
		"  error: the server exited at startup (exit status 3; its stderr says why)",
		"  stderr:\n    fatal: cannot open /nonexistent/db\n",
		"everything: ready (command ",
		"  tools (3): echo, get-env, toggle-simulated-logging\n",
		"off: disabled (enabled = false; command never-started)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}

	cmd = exec.Command(binary, "mcp", "list", "--json")
	cmd.Env = append(os.Environ(), env)
	raw, _ := cmd.Output()
	var list []struct {
		Name  string `json:"name"`
		State string `json:"state"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("--json: %v\n%s", err, raw)
	}
	if len(list) != 3 || list[0].Name != "broken" || list[1].State != "ready" || list[2].State != "disabled" {
		t.Errorf("--json: %+v", list)
	}
}

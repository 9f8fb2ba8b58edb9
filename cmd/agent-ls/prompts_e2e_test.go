package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// promptsConfig is a user config with the everything server, whose
// prompts are slash commands.
func promptsConfig(t *testing.T, everything string) string {
	return writeConfig(t, fmt.Sprintf(`[mcp_servers.everything]
command = %q
args = ["stdio"]
startup_timeout_sec = 60
`, everything))
}

// lastInput is the text of the last input item of a model request.
func lastInput(t *testing.T, r *fakemodel.Request) string {
	t.Helper()
	texts := inputTexts(t, r)
	return texts[len(texts)-1]
}

// TestServeMCPPrompts: agent/listMcpServers lists the everything
// server's prompts with their arguments; a /everything:<prompt> prompt in
// agent/startTurn sends the model the prompt's text in place of the
// slash text, its one required argument given as the rest of the line;
// one without its required argument fails without asking the model.
func TestServeMCPPrompts(t *testing.T) {
	s := start(t, []string{promptsConfig(t, everythingServer(t))}, fakemodel.Say("Sunny."))
	turn := s.startTurn(map[string]any{"prompt": "/everything:args-prompt New York"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	reqs := s.model.Requests()
	if got := lastInput(t, reqs[0]); got != "What's weather in New York?" {
		t.Errorf("the model got %q", got)
	}
	turn = s.startTurn(map[string]any{"prompt": "/everything:resource-prompt resourceType=Text", "sessionId": turn.SessionID})
	done := s.wait(turn.TurnID)
	if done.Status != "failed" || !strings.Contains(done.Error, `/everything:resource-prompt: the required argument "resourceId" is missing`) {
		t.Errorf("turn %+v", done)
	}
	if n := len(s.model.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}

	var res struct {
		Servers []struct {
			Name    string `json:"name"`
			Prompts []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Arguments   []struct {
					Name     string `json:"name"`
					Required bool   `json:"required"`
				} `json:"arguments"`
			} `json:"prompts"`
		} `json:"servers"`
	}
	if err := s.ed.Request(s.ctx, "agent/listMcpServers", map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Servers) != 1 {
		t.Fatalf("servers %+v", res.Servers)
	}
	var names []string
	for _, p := range res.Servers[0].Prompts {
		names = append(names, p.Name)
		if p.Name == "args-prompt" {
			args := fmt.Sprintf("%+v", p.Arguments)
			if args != "[{Name:city Required:true} {Name:state Required:false}]" || p.Description == "" {
				t.Errorf("args-prompt: %+v", p)
			}
		}
	}
	for _, want := range []string{"args-prompt", "resource-prompt", "simple-prompt"} {
		if !slices.Contains(names, want) {
			t.Errorf("prompt %s not listed: %q", want, names)
		}
	}
}

// TestExecMCPPrompt: `agent-ls exec "/everything:resource-prompt ..."`
// sends the model the prompt's messages, the embedded resource's text
// among them; an unknown prompt is an error before the model is asked.
func TestExecMCPPrompt(t *testing.T) {
	env := promptsConfig(t, everythingServer(t))
	m := fakemodel.New(fakemodel.Say("Analysed."))
	defer m.Close()
	cmd := execCmd(t, m, "/everything:resource-prompt resourceType=Text resourceId=2")
	cmd.Env = append(cmd.Env, env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	texts := strings.Join(inputTexts(t, reqs[0]), "\n")
	for _, want := range []string{"This prompt includes the Text resource with id: 2", "Resource 2: This is a plaintext resource"} {
		if !strings.Contains(texts, want) {
			t.Errorf("the model's input lacks %q:\n%s", want, texts)
		}
	}
	if strings.Contains(texts, "/everything:") {
		t.Errorf("the slash text reached the model:\n%s", texts)
	}

	cmd = execCmd(t, m, "/everything:no-such-prompt")
	cmd.Env = append(cmd.Env, env)
	errb.Reset()
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &errb
	if code := exitCode(cmd.Run()); code == 0 || !strings.Contains(errb.String(), `the MCP server everything has no prompt "no-such-prompt"; its prompts: `) {
		t.Errorf("exit %d, stderr:\n%s", code, errb.String())
	}
	if n := len(m.Requests()); n != 1 {
		t.Errorf("the model was asked about an unknown prompt (%d requests)", n)
	}
}

// availableCommands are the names of the last available_commands_update
// the client got in session id.
func (c *acpClient) availableCommands(id string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, n := range c.updates {
		if u := n.Update.AvailableCommandsUpdate; u != nil && string(n.SessionId) == id {
			names = names[:0]
			for _, cmd := range u.AvailableCommands {
				names = append(names, cmd.Name)
			}
		}
	}
	return names
}

// TestACPMCPPrompts: the prompts of a configured server and of the
// client's own server come to the client as slash commands
// <server>:<prompt> once the servers run; /<server>:<prompt> args in
// session/prompt sends the model the prompt's text; a prompt missing an
// argument is an error of the request, not a question to the model.
func TestACPMCPPrompts(t *testing.T) {
	everything := everythingServer(t)
	m := fakemodel.New(fakemodel.Say("Rainy."), fakemodel.Say("Hello."))
	t.Cleanup(m.Close)
	dir := t.TempDir()
	c := &acpClient{}
	r := startACP(t, m, dir, t.TempDir(), c, promptsConfig(t, everything))
	r.initialize(false)
	id := r.newSession()
	want := []string{"everything:args-prompt", "everything:resource-prompt", "everything:simple-prompt"}
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := c.availableCommands(id)
		if !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(got, w) }) {
			if !slices.Contains(got, "undo") {
				t.Errorf("commands %q", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("commands %q, want %q among them", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pr, err := r.prompt(id, `/everything:args-prompt city=Rome state="Lazio, Italy"`); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	if got := lastInput(t, m.Requests()[0]); got != "What's weather in Rome, Lazio, Italy?" {
		t.Errorf("the model got %q", got)
	}
	if _, err := r.prompt(id, "/everything:args-prompt"); err == nil || !strings.Contains(err.Error(), `the required argument \"city\" is missing`) {
		t.Errorf("a prompt without its argument: %v", err)
	}
	if n := len(m.Requests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}

	// A client's own server: its prompts are the session's commands.
	own := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "mine", Command: everything, Args: []string{"stdio"}, Env: []sdk.EnvVariable{}}}
	res2, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{own}})
	if err != nil {
		t.Fatal(err)
	}
	id2 := string(res2.SessionId)
	for !slices.Contains(c.availableCommands(id2), "mine:simple-prompt") {
		if time.Now().After(deadline) {
			t.Fatalf("commands %q", c.availableCommands(id2))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pr, err := r.prompt(id2, "/mine:simple-prompt"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	if got := lastInput(t, m.Requests()[1]); got != "This is a simple prompt without arguments." {
		t.Errorf("the model got %q", got)
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// execCall is the model's exec_command call of script, without a login
// shell (a login profile may be slow to read), yielding after 250 ms.
func execCall(id, script string) fakemodel.Step {
	return fakemodel.Answer(fakemodel.FunctionCall(id, "exec_command", `{"cmd":`+quoteJSON(script)+`,"login":false,"yield_time_ms":250}`))
}

// initializeWith initializes with the client's _meta capabilities, and
// the spec's terminal capability (which agent-ls does not use).
func (r *acpRun) initializeWith(meta map[string]any) {
	r.t.Helper()
	if _, err := r.conn.Initialize(r.ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Meta: meta, Terminal: true}, ClientInfo: &sdk.Implementation{Name: "go-test", Version: "1"}}); err != nil {
		r.t.Fatal(err)
	}
}

// waitUpdates waits until the updates received, as JSON, contain text.
func (r *acpRun) waitUpdates(text string) []string {
	r.t.Helper()
	for {
		us := r.client.rawUpdates()
		if strings.Contains(strings.Join(us, "\n"), text) {
			return us
		}
		select {
		case <-r.ctx.Done():
			r.t.Fatalf("no update with %q:\n%s", text, strings.Join(us, "\n"))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestACPTerminalOutputMeta: to a client that advertises
// _meta.terminal_output, through the Go SDK, a command session's output
// goes as codex-acp sends it, never through terminal/create (the client
// would run the command outside the sandbox): the exec_command call with terminal
// content and terminal_info, its output as terminal_output, also what
// it prints after the call and its turn ended, and terminal_exit.
func TestACPTerminalOutputMeta(t *testing.T) {
	m := fakemodel.New(execCall("x1", "echo first; sleep 0.7; echo second"), fakemodel.Say("it runs"))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initializeWith(map[string]any{"terminal_output": true})
	id := r.newSession()
	if res, err := r.prompt(id, "start it"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("%+v %v", res, err)
	}
	us := r.waitUpdates(`"terminal_exit"`)
	var data strings.Builder
	var info, exit map[string]any
	for _, u := range us {
		var v struct {
			SessionUpdate string                    `json:"sessionUpdate"`
			ToolCallID    string                    `json:"toolCallId"`
			Content       []map[string]any          `json:"content"`
			Meta          map[string]map[string]any `json:"_meta"`
		}
		json.Unmarshal([]byte(u), &v)
		if i := v.Meta["terminal_info"]; i != nil {
			info = i
			if v.SessionUpdate != "tool_call" || v.ToolCallID != "x1" || len(v.Content) != 1 || v.Content[0]["type"] != "terminal" || v.Content[0]["terminalId"] != "x1" {
				t.Errorf("the call with terminal_info: %s", u)
			}
		}
		if o := v.Meta["terminal_output"]; o != nil {
			if info == nil || exit != nil || o["terminal_id"] != "x1" {
				t.Errorf("terminal_output out of place: %s", u)
			}
			data.WriteString(o["data"].(string))
		}
		if e := v.Meta["terminal_exit"]; e != nil {
			exit = e
		}
	}
	if info == nil || info["terminal_id"] != "x1" || info["cwd"] != r.dir {
		t.Errorf("terminal_info %v", info)
	}
	if data.String() != "first\nsecond\n" {
		t.Errorf("terminal_output data %q", data.String())
	}
	if exit["terminal_id"] != "x1" || exit["exit_code"] != float64(0) {
		t.Errorf("terminal_exit %v", exit)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terminals != 0 {
		t.Errorf("agent-ls called terminal/create %d times", c.terminals)
	}
}

// TestACPTerminalOutputText: a client without _meta.terminal_output sees
// the same session as the call's text: no terminal content, no _meta;
// the output after the turn ended updates the call, whose text ends with
// the exit code.
func TestACPTerminalOutputText(t *testing.T) {
	m := fakemodel.New(execCall("x1", "echo first; sleep 0.7; echo second"), fakemodel.Say("it runs"))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	if res, err := r.prompt(id, "start it"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("%+v %v", res, err)
	}
	us := r.waitUpdates("Command session 1000 exited with code 0.")
	all := strings.Join(us, "\n")
	if strings.Contains(all, `"_meta"`) || strings.Contains(all, `"terminal"`) {
		t.Errorf("terminal content or _meta sent to a client that did not ask:\n%s", all)
	}
	if !strings.Contains(all, "Runs on as command session 1000") {
		t.Errorf("the call's result does not say the command runs on:\n%s", all)
	}
	last := us[len(us)-1]
	if !strings.Contains(last, `"toolCallId":"x1"`) || !strings.Contains(last, `first\nsecond\n`) {
		t.Errorf("the last update: %s", last)
	}
}

// TestACPCancelKeepsTerminals: session/cancel stops the turn, not the
// command session it started: /terminals lists it running, the next
// prompt's write_stdin polls it and it still runs; /kill N stops it and
// everything it started, and /terminals then says so.
func TestACPCancelKeepsTerminals(t *testing.T) {
	marker := proctest.Marker()
	slow := fakemodel.NewGate(2)
	t.Cleanup(slow.Release)
	never := fakemodel.Say("a long answer that never ends")
	never.Gate = slow
	m := fakemodel.New(
		execCall("x1", "(exec -a "+marker+" sleep 1000 &); exec -a "+marker+" sleep 1000"), never,
		fakemodel.Answer(fakemodel.FunctionCall("x2", "write_stdin", `{"session_id":1000,"yield_time_ms":5000}`)), fakemodel.Say("still there"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	done := r.promptAsync(id, "start a server")
	<-slow.Reached()
	// A command runs while the turn does.
	if text := r.command(id, "/terminals"); !strings.Contains(text, "- 1000: (exec -a "+marker) || !strings.Contains(text, "(running)") {
		t.Errorf("/terminals during the turn: %q", text)
	}
	if err := r.conn.Cancel(r.ctx, sdk.CancelNotification{SessionId: sdk.SessionId(id)}); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.err != nil || res.res.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("%+v", res)
	}
	if len(proctest.Find(marker)) == 0 {
		t.Fatal("the cancel stopped the command session")
	}
	if res, err := r.prompt(id, "is it there?"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("%+v %v", res, err)
	}
	reqs := m.Requests()
	if polled := reqs[len(reqs)-1].Body; !strings.Contains(string(polled), `Process running with session ID 1000`) || strings.Count(string(polled), "Process running with session ID 1000") < 2 {
		t.Errorf("the poll after the cancel does not find the session running: %s", polled)
	}
	if text := r.command(id, "/kill 1000"); text != "Stopped command session 1000, with all it started." {
		t.Errorf("/kill 1000: %q", text)
	}
	proctest.Gone(t, marker)
	if text := r.command(id, "/terminals"); !strings.Contains(text, "- 1000:") || !strings.Contains(text, "stopped at the user's request") {
		t.Errorf("/terminals after /kill: %q", text)
	}
	if text := r.command(id, "/kill"); text != "No command session was running." {
		t.Errorf("/kill with none running: %q", text)
	}
}

// command sends a slash command as a prompt and returns what the agent
// said back.
func (r *acpRun) command(id, text string) string {
	r.t.Helper()
	before := len(r.client.rawUpdates())
	res, err := r.prompt(id, text)
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		r.t.Fatalf("%s: %+v %v", text, res, err)
	}
	r.client.mu.Lock()
	defer r.client.mu.Unlock()
	var b strings.Builder
	for _, n := range r.client.updates[before:] {
		if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
			b.WriteString(m.Content.Text.Text)
		}
	}
	return b.String()
}

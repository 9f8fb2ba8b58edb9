package acp

import (
	"fmt"
	"slices"

	"encoding/json"
	"github.com/agent-ls/agent-ls/internal/agent"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/event"
)

// terminalRun feeds a command session's events, the call that started
// it ending before the command does, to a client that advertises
// _meta.terminal_output (meta) or not, and returns the updates of the
// call as JSON once the exit was shown.
func terminalRun(t *testing.T, meta bool) []string {
	t.Helper()
	fa := &fakeAgent{}
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	caps := sdk.ClientCapabilities{}
	if meta {
		caps.Meta = map[string]any{"terminal_output": true}
	}
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	emit := func(turn string, p event.Payload) {
		fa.fe.Event(event.Event{SessionID: "s-1", TurnID: turn, Payload: p})
	}
	emit("t1", event.ToolCall{CallID: "c1", Tool: "exec_command", Kind: event.KindExecute, Title: "Run serve", Arguments: json.RawMessage(`{"cmd":"serve"}`)})
	emit("t1", event.TerminalStarted{TerminalID: "1000", CallID: "c1", Command: []string{"bash", "-lc", "serve"}, Cwd: "/w"})
	emit("t1", event.TerminalOutput{TerminalID: "1000", Data: "ready\n"})
	emit("t1", event.TerminalOutput{TerminalID: "1001", Data: "not ours\n"})
	emit("t1", event.ToolResult{CallID: "c1", Tool: "exec_command", Status: event.ToolCompleted, Output: "Chunk ID: 0\nProcess running with session ID 1000\nOutput:\nready\n"})
	updates := func(until string) []string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var out []string
			rec.mu.Lock()
			for _, u := range rec.updates {
				if u.ToolCall != nil || u.ToolCallUpdate != nil {
					b, _ := json.Marshal(u)
					out = append(out, string(b))
				}
			}
			rec.mu.Unlock()
			all := strings.Join(out, "\n")
			if strings.Contains(all, until) {
				return out
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s:\n%s", until, all)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	updates(`"completed"`)
	// Between turns: the call ended, the command runs on.
	emit("", event.TerminalOutput{TerminalID: "1000", Data: "GET /\n"})
	updates("GET /")
	// The exit alone, its output all shown already.
	emit("", event.TerminalExited{TerminalID: "1000", ExitCode: 143})
	emit("", event.TerminalOutput{TerminalID: "1000", Data: "after the end\n"})
	return updates("143")
}

// TestTerminalOutputMeta: a client that advertises _meta.terminal_output
// gets codex-acp's shapes on the exec_command call: the call again with
// terminal content and terminal_info, the output as terminal_output
// (each byte once, also after the call ended), the result's status
// without content (the terminal stays), and terminal_exit last.
func TestTerminalOutputMeta(t *testing.T) {
	us := terminalRun(t, true)
	all := strings.Join(us, "\n")
	var data strings.Builder
	started, exitAt, resultAt := -1, -1, -1
	for i, u := range us {
		var m struct {
			SessionUpdate string                    `json:"sessionUpdate"`
			Status        string                    `json:"status"`
			Content       []map[string]any          `json:"content"`
			Meta          map[string]map[string]any `json:"_meta"`
		}
		if err := json.Unmarshal([]byte(u), &m); err != nil {
			t.Fatal(err)
		}
		if info, ok := m.Meta["terminal_info"]; ok {
			if m.SessionUpdate != "tool_call" || info["terminal_id"] != "c1" || info["cwd"] != "/w" || len(m.Content) != 1 ||
				m.Content[0]["type"] != "terminal" || m.Content[0]["terminalId"] != "c1" || m.Status != "in_progress" || !strings.Contains(u, `"title":"Run serve"`) {
				t.Errorf("terminal_info update: %s", u)
			}
			started = i
		}
		if o, ok := m.Meta["terminal_output"]; ok {
			if started < 0 || o["terminal_id"] != "c1" || m.Content != nil || m.Status != "" {
				t.Errorf("terminal_output update: %s", u)
			}
			data.WriteString(o["data"].(string))
		}
		if e, ok := m.Meta["terminal_exit"]; ok {
			if e["terminal_id"] != "c1" || e["exit_code"] != float64(143) || e["signal"] != nil {
				t.Errorf("terminal_exit update: %s", u)
			}
			if _, has := e["signal"]; !has {
				t.Errorf("terminal_exit without signal: %s", u)
			}
			exitAt = i
		}
		if m.Status == "completed" {
			if m.Content != nil {
				t.Errorf("the result replaced the terminal: %s", u)
			}
			resultAt = i
		}
	}
	if data.String() != "ready\nGET /\n" {
		t.Errorf("terminal_output data %q, want each output once, none after the exit:\n%s", data.String(), all)
	}
	if started < 0 || exitAt != len(us)-1 || resultAt < started {
		t.Errorf("order: started %d, result %d, exit %d of %d:\n%s", started, resultAt, exitAt, len(us), all)
	}
	if strings.Contains(all, "Chunk ID") || strings.Contains(all, "not ours") {
		t.Errorf("the model's text or another terminal's output shown:\n%s", all)
	}
}

// TestTerminalOutputText: a client without _meta.terminal_output gets
// no terminal content and no _meta: the output is the call's text, also
// after the call ended, which says the command runs on as a session
// (with /terminals and /kill), then its exit code.
func TestTerminalOutputText(t *testing.T) {
	us := terminalRun(t, false)
	all := strings.Join(us, "\n")
	if strings.Contains(all, "_meta") || strings.Contains(all, `"terminal"`) || strings.Contains(all, "Chunk ID") || strings.Contains(all, "not ours") {
		t.Errorf("terminal content, meta or the model's text shown:\n%s", all)
	}
	var result, last string
	for _, u := range us {
		if strings.Contains(u, `"completed"`) {
			result = u
		}
		last = u
	}
	if !strings.Contains(result, `ready\n`) || !strings.Contains(result, "Runs on as command session 1000: /terminals lists it, /kill 1000 stops it.") {
		t.Errorf("the result: %s", result)
	}
	if !strings.Contains(last, `ready\nGET /\n`) || !strings.Contains(last, "Command session 1000 exited with code 143.") || strings.Contains(last, "after the end") || strings.Contains(last, `"status"`) {
		t.Errorf("the last update: %s", last)
	}
}

func (f *fakeAgent) ListTerminals(string) ([]agent.TerminalInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.terminals), nil
}

func (f *fakeAgent) KillTerminal(_ string, id int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, t := range f.terminals {
		if t.ID != id {
			continue
		}
		if !t.Running {
			return fmt.Errorf("%w: command session %d exited with code %d", agent.ErrTerminalEnded, id, t.ExitCode)
		}
		f.terminals[i].Running, f.terminals[i].ExitCode, f.terminals[i].Killed = false, 137, "at the user's request"
		return nil
	}
	return fmt.Errorf("%w: %d", agent.ErrUnknownTerminal, id)
}

func (f *fakeAgent) StopTerminals(string) ([]int, error) {
	f.mu.Lock()
	var ids []int
	for _, t := range f.terminals {
		if t.Running {
			ids = append(ids, t.ID)
		}
	}
	f.mu.Unlock()
	for _, id := range ids {
		f.KillTerminal("", id)
	}
	return ids, nil
}

// TestTerminalCommands: /terminals and /kill are offered beside the
// other commands; /terminals lists the sessions, /kill N stops one (an
// unknown or ended one is told, not an error), /kill all the others,
// and a bad argument gets the usage.
func TestTerminalCommands(t *testing.T) {
	fa := &fakeAgent{terminals: []agent.TerminalInfo{
		{ID: 1000, Command: []string{"bash", "-lc", "npm run dev"}, Running: true},
		{ID: 1001, Command: []string{"bash", "-lc", "printf '\x1b[2J'"}, Running: false, ExitCode: 3},
		{ID: 1002, Command: []string{"bash", "-lc", "python3 -i"}, Running: true, TTY: true},
	}}
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	// Offered beside the others, after session/new's answer.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var names []string
		rec.mu.Lock()
		for _, u := range rec.updates {
			if u.AvailableCommandsUpdate != nil {
				for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
					names = append(names, c.Name)
				}
			}
		}
		rec.mu.Unlock()
		if strings.Join(names, " ") == "undo rewind new approve steer terminals kill" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("commands offered: %v", names)
		}
	}
	say := func(prompt string) string {
		t.Helper()
		rec.mu.Lock()
		rec.updates = nil
		rec.mu.Unlock()
		pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(prompt)}})
		if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("%s: %+v %v", prompt, pr, err)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var text string
		for _, u := range rec.updates {
			if u.AgentMessageChunk != nil {
				text += u.AgentMessageChunk.Content.Text.Text
			}
		}
		return text
	}
	list := say("/terminals")
	if strings.Contains(list, "\x1b") {
		t.Errorf("/terminals shows an escape sequence:\n%s", list)
	}
	for _, want := range []string{"- 1000: npm run dev (running)\n", "(exited with code 3)", "- 1002: python3 -i (running)\n", "/kill N stops one"} {
		if !strings.Contains(list, want) {
			t.Errorf("/terminals lacks %q:\n%s", want, list)
		}
	}
	// In this order: the second /kill 1000 finds the session stopped.
	for _, c := range []struct{ prompt, want string }{
		{"/kill 1000", "Stopped command session 1000, with all it started."},
		{"/kill 1000 ", "command session 1000 exited with code 137."},
		{"/kill 77", "There is no command session 77: /terminals lists them."},
		{"/kill x", "Usage: /kill N"},
	} {
		if got := say(c.prompt); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.prompt, got, c.want)
		}
	}
	if got := say("/kill all"); got != "Stopped command session 1002, with all it started." {
		t.Errorf("/kill all: %q", got)
	}
	if got := say("/kill"); got != "No command session was running." {
		t.Errorf("/kill with none running: %q", got)
	}
	if list := say("/terminals"); !strings.Contains(list, "- 1000: npm run dev (exited with code 137, stopped at the user's request)") {
		t.Errorf("/terminals after the kills:\n%s", list)
	}
}

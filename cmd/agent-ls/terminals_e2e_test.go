package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/proctest"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// execCommand is a call of exec_command with args.
func execCommand(t *testing.T, id string, args map[string]any) fakemodel.Item {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return fakemodel.FunctionCall(id, "exec_command", string(b))
}

// writeStdin is a call of write_stdin with args.
func writeStdin(t *testing.T, id string, args map[string]any) fakemodel.Item {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return fakemodel.FunctionCall(id, "write_stdin", string(b))
}

// terminalEvent is the terminal fields of an agent/event.
type terminalEvent struct {
	TerminalID string `json:"terminalId"`
	Data       string `json:"data"`
	ExitCode   *int   `json:"exitCode"`
}

func terminalOf(t *testing.T, ev editor.Event) terminalEvent {
	t.Helper()
	var te terminalEvent
	if err := json.Unmarshal(ev.Raw, &te); err != nil {
		t.Fatal(err)
	}
	return te
}

// listedTerminal is an entry of agent/listTerminals.
type listedTerminal struct {
	TerminalID string   `json:"terminalId"`
	Command    []string `json:"command"`
	Cwd        string   `json:"cwd"`
	Running    bool     `json:"running"`
	ExitCode   *int     `json:"exitCode"`
	Killed     string   `json:"killed"`
}

func (s *session) listTerminals(sessionID string) []listedTerminal {
	s.t.Helper()
	var res struct {
		Terminals []listedTerminal `json:"terminals"`
	}
	if err := s.ed.Request(s.ctx, "agent/listTerminals", map[string]any{"sessionId": sessionID}, &res); err != nil {
		s.t.Fatalf("agent/listTerminals: %v", err)
	}
	return res.Terminals
}

// waitTerminalEvent waits for an event of type typ of terminal id.
func (s *session) waitTerminalEvent(typ, id string, match func(terminalEvent) bool) terminalEvent {
	s.t.Helper()
	ev, err := s.ed.WaitEvent(s.ctx, func(ev editor.Event) bool {
		if string(ev.Type) != typ {
			return false
		}
		te := terminalOf(s.t, ev)
		return te.TerminalID == id && (match == nil || match(te))
	})
	if err != nil {
		s.t.Fatalf("no %s of terminal %s: %v", typ, id, err)
	}
	return terminalOf(s.t, ev)
}

// callOutputs are the tool outputs a model request carries, by call id.
func callOutputs(t *testing.T, r *fakemodel.Request) map[string]string {
	t.Helper()
	var body struct {
		Input []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Output string `json:"output"`
			Role   string `json:"role"`
			Text   string `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, it := range body.Input {
		if it.Type == "function_call_output" {
			out[it.CallID] = it.Output
		}
	}
	return out
}

// pythonBinary is the Python interpreter itself, not a version manager's
// shim in front of it (pyenv's takes seconds to start and complains in a
// read-only home).
func pythonBinary(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("SKIPPING: no python3: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// needUnixSockets skips where sandboxed commands cannot reach each
// other's Unix sockets.
func needUnixSockets(t *testing.T) {
	t.Helper()
	if why := sandbox.Probe().Unavailable(); why != "" {
		t.Skip("SKIPPING: no sandbox here: " + why)
	}
	if !sandbox.Probe().UnixSockets {
		t.Skip("SKIPPING: Unix sockets stay denied with the network off here")
	}
}

// devServer is a small HTTP server on a Unix socket (with the network
// off, sandboxed commands have no TCP, loopback included); client asks
// it for a page.
const (
	devServer = `import http.server, os, socketserver, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def address_string(self): return "local"
    def do_GET(self):
        body = b"hello from the dev server\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
if os.path.exists(sys.argv[1]): os.unlink(sys.argv[1])
srv = Server(sys.argv[1], Handler)
print("serving on", sys.argv[1], flush=True)
srv.serve_forever()
`
	devClient = `import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
data = b""
while True:
    chunk = s.recv(4096)
    if not chunk: break
    data += chunk
print(data.decode().splitlines()[0], "|", data.decode().splitlines()[-1])
`
)

// TestTerminalDevServerKilledByTheUser: a dev server started by
// exec_command in one turn runs on into the next, where an empty
// write_stdin polls it and a second command reaches it; the user lists
// it and kills it with agent/killTerminal: terminalExited follows, the
// listing shows it ended with its exit code, nothing of it survives, and
// the model is told at its next request.
func TestTerminalDevServerKilledByTheUser(t *testing.T) {
	needUnixSockets(t)
	python := pythonBinary(t)
	marker := proctest.Marker()
	m := fakemodel.New(
		fakemodel.Answer(execCommand(t, "c1", map[string]any{"cmd": "exec " + python + " server.py \"$PWD/dev.sock\" " + marker, "yield_time_ms": 250})),
		fakemodel.Say("The server runs."),
		fakemodel.Answer(writeStdin(t, "c2", map[string]any{"session_id": 1000, "chars": ""})),
		fakemodel.Answer(execCommand(t, "c3", map[string]any{"cmd": python + " client.py \"$PWD/dev.sock\""})),
		fakemodel.Say("It answers."),
		fakemodel.Say("Noted."),
	)
	t.Cleanup(m.Close)
	dir := t.TempDir()
	for name, src := range map[string]string{"server.py": devServer, "client.py": devClient} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := startOn(t, m, dir, nil, editor.Config{}, editor.Options{Events: true})
	first := s.startTurn(map[string]any{"prompt": "start the dev server"})
	if done := s.wait(first.TurnID); done.Status != "completed" {
		t.Fatalf("first turn: %+v", done)
	}
	sid := first.SessionID
	s.waitTerminalEvent("terminalOutput", "1000", func(te terminalEvent) bool { return strings.Contains(te.Data, "serving on") })
	second := s.startTurn(map[string]any{"sessionId": sid, "prompt": "check it"})
	if done := s.wait(second.TurnID); done.Status != "completed" {
		t.Fatalf("second turn: %+v", done)
	}
	out := callOutputs(t, m.Requests()[4])
	if !strings.Contains(out["c1"], "Process running with session ID 1000") {
		t.Errorf("the start's output: %q", out["c1"])
	}
	if poll := out["c2"]; !strings.Contains(poll, "Process running with session ID 1000") || !strings.Contains(out["c1"]+poll, "serving on") {
		t.Errorf("the poll's output: %q", poll)
	}
	if !strings.Contains(out["c3"], "HTTP/1.0 200 OK | hello from the dev server") {
		t.Errorf("the second command did not reach the server: %q", out["c3"])
	}

	// The server runs; the client, which the model saw end, is listed
	// as ended.
	list := s.listTerminals(sid)
	if len(list) != 2 || list[0].TerminalID != "1000" || !list[0].Running || list[0].ExitCode != nil ||
		list[0].Cwd != string(uri.File(dir)) || !strings.Contains(strings.Join(list[0].Command, " "), marker) ||
		list[1].TerminalID != "1001" || list[1].Running || list[1].ExitCode == nil || *list[1].ExitCode != 0 {
		t.Fatalf("agent/listTerminals: %+v", list)
	}
	if len(proctest.Find(marker)) == 0 {
		t.Fatal("the dev server does not run")
	}
	if err := s.ed.Request(s.ctx, "agent/killTerminal", map[string]any{"sessionId": sid, "terminalId": "1000"}, nil); err != nil {
		t.Fatalf("agent/killTerminal: %v", err)
	}
	exited := s.waitTerminalEvent("terminalExited", "1000", nil)
	proctest.Gone(t, marker)
	list = s.listTerminals(sid)
	if len(list) != 2 || list[0].Running || list[0].ExitCode == nil || *list[0].ExitCode != *exited.ExitCode || list[0].Killed == "" {
		t.Errorf("after the kill: %+v (exited %+v)", list, exited)
	}
	err := s.ed.Request(s.ctx, "agent/killTerminal", map[string]any{"sessionId": sid, "terminalId": "1000"}, nil)
	if err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Errorf("a second kill: %v", err)
	}

	third := s.startTurn(map[string]any{"sessionId": sid, "prompt": "and now?"})
	s.wait(third.TurnID)
	if body := string(m.Requests()[5].Body); !strings.Contains(body, "The user killed command session 1000") {
		t.Errorf("the model was not told of the kill: %s", body[strings.LastIndex(body, `"input"`):])
	}
}

// TestTerminalPromptAnsweredByTheUser: a command waits at a `read -p`
// prompt on a pty; the user answers it through agent/writeTerminal
// (nobody is asked), and the model sees the answer's effect when it polls.
func TestTerminalPromptAnsweredByTheUser(t *testing.T) {
	s := start(t, nil,
		fakemodel.Answer(execCommand(t, "c1", map[string]any{"cmd": "read -p 'Your name? ' name; echo \"hello, $name\"", "tty": true, "yield_time_ms": 1000})),
		fakemodel.Say("It asks for a name."),
		fakemodel.Answer(writeStdin(t, "c2", map[string]any{"session_id": 1000, "chars": "", "yield_time_ms": 30000})),
		fakemodel.Say("Answered."),
	)
	first := s.startTurn(map[string]any{"prompt": "ask me"})
	s.wait(first.TurnID)
	s.waitTerminalEvent("terminalOutput", "1000", func(te terminalEvent) bool { return strings.Contains(te.Data, "Your name?") })
	if err := s.ed.Request(s.ctx, "agent/writeTerminal", map[string]any{"sessionId": first.SessionID, "terminalId": "1000", "data": "Ada\r"}, nil); err != nil {
		t.Fatalf("agent/writeTerminal: %v", err)
	}
	exited := s.waitTerminalEvent("terminalExited", "1000", nil)
	if *exited.ExitCode != 0 {
		t.Errorf("exit code %d", *exited.ExitCode)
	}
	second := s.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "did I answer?"})
	s.wait(second.TurnID)
	if out := callOutputs(t, s.model.Requests()[3])["c2"]; !strings.Contains(out, "hello, Ada") || !strings.Contains(out, "Process exited with code 0") {
		t.Errorf("the model does not see the answer: %q", out)
	}
	for _, ev := range s.ed.Events() {
		if ev.Type == "approval" && ev.Decision != "autoAllow" {
			t.Errorf("the user's input was put to an approval: %+v", ev)
		}
	}
}

// TestTerminalsStopForPlainClients: a client with no agent code sees
// command sessions start and end in its log, is offered "Agent: Stop
// terminals" while they run, and stops them with agent.stopTerminals;
// agent.newSession kills those of the session it replaces.
func TestTerminalsStopForPlainClients(t *testing.T) {
	m1, m2, m3 := proctest.Marker(), proctest.Marker(), proctest.Marker()
	s := startWith(t, nil, editor.Config{}, editor.Options{},
		fakemodel.Answer(execCommand(t, "c1", map[string]any{"cmd": "exec -a " + m1 + " sleep 1000", "yield_time_ms": 250}),
			execCommand(t, "c2", map[string]any{"cmd": "(exec -a " + m2 + " sleep 1000) & exec -a " + m2 + " sleep 1000", "yield_time_ms": 250})),
		fakemodel.Say("Two run."),
		fakemodel.Answer(execCommand(t, "c3", map[string]any{"cmd": "exec -a " + m3 + " sleep 1000", "yield_time_ms": 250})),
		fakemodel.Say("One more."),
	)
	runCommand := func(command string, args ...any) json.RawMessage {
		t.Helper()
		var raw []json.RawMessage
		for _, a := range args {
			b, _ := json.Marshal(a)
			raw = append(raw, b)
		}
		var res json.RawMessage
		if err := s.ed.Request(s.ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": raw}, &res); err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		return res
	}
	waitMessage := func(text string) {
		t.Helper()
		if _, err := s.ed.WaitMessage(s.ctx, func(p protocol.ShowMessageParams) bool { return strings.Contains(p.Message, text) }); err != nil {
			t.Fatalf("no message with %q: %v (messages %+v)", text, err, s.ed.Messages())
		}
	}
	actions := func() []string {
		t.Helper()
		var list []protocol.CodeAction
		at := protocol.Position{Line: 0}
		if err := s.ed.Request(s.ctx, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(filepath.Join(s.dir, "a.txt"))}, Range: protocol.Range{Start: at, End: at},
		}, &list); err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, a := range list {
			titles = append(titles, a.Title)
		}
		return titles
	}

	runCommand("agent.startTurn", map[string]any{"prompt": "start two"})
	waitMessage("Two run.")
	waitMessage("command session 1001 started: (exec -a " + m2)
	if !slices.Contains(actions(), "Agent: Stop terminals") {
		t.Fatalf("no Stop terminals among %q", actions())
	}
	res := runCommand("agent.stopTerminals")
	if got := string(res); !strings.Contains(got, `"terminalId":"1000"`) || !strings.Contains(got, `"terminalId":"1001"`) {
		t.Errorf("agent.stopTerminals answered %s", got)
	}
	proctest.Gone(t, m1)
	proctest.Gone(t, m2)
	waitMessage("command session 1001 ended (exit code")
	waitMessage("Agent: stopped 2 command sessions")
	if slices.Contains(actions(), "Agent: Stop terminals") {
		t.Errorf("Stop terminals still offered: %q", actions())
	}

	runCommand("agent.startTurn", map[string]any{"prompt": "one more"})
	waitMessage("One more.")
	if len(proctest.Find(m3)) == 0 {
		t.Fatal("the third command does not run")
	}
	runCommand("agent.newSession")
	proctest.Gone(t, m3)
	waitMessage("command session 1002 ended (exit code")
}

// TestTerminalStricterPolicyKills: a command session that runs without
// a sandbox under danger-full-access is killed when the editor's
// settings change the sandbox mode to workspace-write; the user sees it
// end and the model is told why.
func TestTerminalStricterPolicyKills(t *testing.T) {
	marker := proctest.Marker()
	s := start(t, nil,
		fakemodel.Answer(execCommand(t, "c1", map[string]any{"cmd": "exec -a " + marker + " sleep 1000", "yield_time_ms": 250})),
		fakemodel.Say("Running."),
		fakemodel.Say("Understood."),
	)
	if err := s.ed.Notify(s.ctx, "workspace/didChangeConfiguration", map[string]any{
		"settings": map[string]any{"agentLs": map[string]any{"sandboxMode": "danger-full-access"}}}); err != nil {
		t.Fatal(err)
	}
	var info struct {
		SessionID   string `json:"sessionId"`
		SandboxMode string `json:"sandboxMode"`
	}
	if err := s.ed.Request(s.ctx, "agent/newSession", map[string]any{}, &info); err != nil || info.SandboxMode != "danger-full-access" {
		t.Fatalf("agent/newSession: %+v %v", info, err)
	}
	first := s.startTurn(map[string]any{"sessionId": info.SessionID, "prompt": "run it"})
	s.wait(first.TurnID)
	if len(proctest.Find(marker)) == 0 {
		t.Fatal("the command does not run")
	}
	if err := s.ed.Notify(s.ctx, "workspace/didChangeConfiguration", map[string]any{
		"settings": map[string]any{"agentLs": map[string]any{"sandboxMode": "workspace-write"}}}); err != nil {
		t.Fatal(err)
	}
	s.waitTerminalEvent("terminalExited", "1000", nil)
	proctest.Gone(t, marker)
	if list := s.listTerminals(info.SessionID); len(list) != 1 || !strings.Contains(list[0].Killed, "policy") {
		t.Errorf("listed %+v", list)
	}
	second := s.startTurn(map[string]any{"sessionId": info.SessionID, "prompt": "what happened?"})
	s.wait(second.TurnID)
	if body := string(s.model.Requests()[2].Body); !strings.Contains(body, "policy became stricter") || !strings.Contains(body, "danger-full-access") {
		t.Errorf("the model was not told: %s", body[strings.LastIndex(body, `"input"`):])
	}
}

// TestTerminalsEndWithTheServer: the command sessions of a language
// server's sessions, and all they started, end with the connection,
// and with the server when it is killed outright.
func TestTerminalsEndWithTheServer(t *testing.T) {
	for _, how := range []string{"connection end", "SIGKILL"} {
		t.Run(how, func(t *testing.T) {
			marker := proctest.Marker()
			s := start(t, nil,
				fakemodel.Answer(execCommand(t, "c1", map[string]any{"cmd": "(exec -a " + marker + " sleep 1000) & exec -a " + marker + " sleep 1000", "yield_time_ms": 250})),
				fakemodel.Say("Running."),
			)
			turn := s.startTurn(map[string]any{"prompt": "run it"})
			s.wait(turn.TurnID)
			if len(proctest.Find(marker)) == 0 {
				t.Fatal("the command does not run")
			}
			if how == "SIGKILL" {
				if err := s.cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
			} else {
				s.ed.Disconnect()
			}
			proctest.Gone(t, marker)
		})
	}
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// acpClient is an ACP client built on the Go SDK's client side: it
// records the updates, answers permissions with answer (nil: never), and
// serves fs/* from buffers over the disk.
type acpClient struct {
	mu       sync.Mutex
	updates  []sdk.SessionNotification
	perms    []sdk.RequestPermissionRequest
	writes   []string
	answer   func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse
	buffers  map[string]string // unsaved editor text by path
	failPath string            // a write to it fails
	permSeen chan struct{}
	// terminals counts terminal/create calls: agent-ls makes none, the
	// client would run the command outside the sandbox.
	terminals int
}

func (c *acpClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	answer := c.answer
	seen := c.permSeen
	c.mu.Unlock()
	if seen != nil {
		select {
		case seen <- struct{}{}:
		default:
		}
	}
	if answer == nil {
		<-ctx.Done() // a client that never answers
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}
	return answer(p), nil
}

func (c *acpClient) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	return nil
}

func (c *acpClient) ReadTextFile(ctx context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	text, ok := c.buffers[p.Path]
	c.mu.Unlock()
	if ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: err.Error()}
	}
	return sdk.ReadTextFileResponse{Content: string(data)}, nil
}

func (c *acpClient) WriteTextFile(ctx context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	c.writes = append(c.writes, p.Path)
	fail := c.failPath
	c.mu.Unlock()
	if fail != "" && p.Path == fail {
		return sdk.WriteTextFileResponse{}, &sdk.RequestError{Code: -32603, Message: "disk full"}
	}
	return sdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

func (c *acpClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	c.mu.Lock()
	c.terminals++
	c.mu.Unlock()
	return sdk.CreateTerminalResponse{}, errors.New("no terminals here")
}
func (c *acpClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("no terminals here")
}
func (c *acpClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("no terminals here")
}
func (c *acpClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("no terminals here")
}
func (c *acpClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("no terminals here")
}

// kinds lists the session updates received, by their wire names.
func (c *acpClient) kinds() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, n := range c.updates {
		b, _ := json.Marshal(n.Update)
		var k struct {
			SessionUpdate string `json:"sessionUpdate"`
		}
		json.Unmarshal(b, &k)
		out = append(out, k.SessionUpdate)
	}
	return out
}

// rawUpdates are the updates received, as JSON.
func (c *acpClient) rawUpdates() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, n := range c.updates {
		b, _ := json.Marshal(n.Update)
		out = append(out, string(b))
	}
	return out
}

func (c *acpClient) agentText() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, n := range c.updates {
		if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
			b.WriteString(m.Content.Text.Text)
		}
	}
	return b.String()
}

func (c *acpClient) thoughts() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, n := range c.updates {
		if m := n.Update.AgentThoughtChunk; m != nil && m.Content.Text != nil {
			b.WriteString(m.Content.Text.Text)
		}
	}
	return b.String()
}

func (c *acpClient) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates, c.perms, c.writes = nil, nil, nil
}

// acpRun is agent-ls acp running against a fake model, with a client.
type acpRun struct {
	t      *testing.T
	conn   *sdk.ClientSideConnection
	client *acpClient
	dir    string
	ctx    context.Context
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	log    *syncWriter
}

// acpExtraArgs are more flags for the next startACP.
var acpExtraArgs []string

func startACP(t *testing.T, m *fakemodel.Server, dir, state string, client *acpClient, env ...string) *acpRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	p := spawnACP(t, m, dir, state, env...)
	if client.buffers == nil {
		client.buffers = map[string]string{}
	}
	conn := sdk.NewClientSideConnection(client, p.stdin, p.stdout)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	return &acpRun{t: t, conn: conn, client: client, dir: dir, ctx: ctx, cmd: p.cmd, stdin: p.stdin, log: p.log}
}

// acpProcess is agent-ls acp started by spawnACP.
type acpProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	log    *syncWriter // its stderr
}

// spawnACP starts agent-ls acp (with acpExtraArgs) in dir against m, its
// state in state; it is stopped, and its log shown if t failed, when t
// ends.
func spawnACP(t *testing.T, m *fakemodel.Server, dir, state string, env ...string) acpProcess {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"acp", "--log-level", "debug"}, acpExtraArgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex", "XDG_STATE_HOME="+state)
	cmd.Env = append(cmd.Env, env...)
	log := &syncWriter{w: &strings.Builder{}}
	cmd.Stderr = log
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("agent-ls acp log:\n%s", log.String())
		}
	})
	return acpProcess{cmd: cmd, stdin: stdin, stdout: stdout, log: log}
}

func (r *acpRun) initialize(fs bool) sdk.InitializeResponse {
	r.t.Helper()
	res, err := r.conn.Initialize(r.ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: fs, WriteTextFile: fs}},
		ClientInfo:         &sdk.Implementation{Name: "go-test", Version: "1"}})
	if err != nil {
		r.t.Fatal(err)
	}
	return res
}

func (r *acpRun) newSession() string {
	r.t.Helper()
	res, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		r.t.Fatal(err)
	}
	return string(res.SessionId)
}

func (r *acpRun) prompt(id, text string) (sdk.PromptResponse, error) {
	return r.conn.Prompt(r.ctx, sdk.PromptRequest{SessionId: sdk.SessionId(id), Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

func pick(id string) func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
	return func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: sdk.PermissionOptionId(id)}}}
	}
}

func TestACPInitializeAndStreamedAnswer(t *testing.T) {
	m := fakemodel.New(fakemodel.Answer(fakemodel.Reasoning("enc", "thinking it over"), fakemodel.Message(fakemodel.Words("hello from the agent")...)))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	init := r.initialize(false)
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.Image ||
		!init.AgentCapabilities.PromptCapabilities.EmbeddedContext || init.AgentCapabilities.SessionCapabilities.List == nil ||
		init.AgentCapabilities.SessionCapabilities.Resume == nil || init.AgentCapabilities.SessionCapabilities.Close == nil ||
		len(init.AuthMethods) != 0 || init.AgentInfo == nil || init.AgentInfo.Name != "agent-ls" {
		t.Fatalf("initialize: %+v", init)
	}
	id := r.newSession()
	res, err := r.prompt(id, "say hello")
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	if got := c.agentText(); got != "hello from the agent" {
		t.Errorf("agent text %q", got)
	}
	kinds := strings.Join(c.kinds(), ",")
	if !strings.Contains(kinds, "available_commands_update") || !strings.Contains(kinds, "session_info_update") || strings.Count(kinds, "agent_message_chunk") < 2 ||
		c.thoughts() != "thinking it over" {
		t.Errorf("updates %s", kinds)
	}
}

func TestACPAuthRequiredWithoutKey(t *testing.T) {
	m := fakemodel.New()
	t.Cleanup(m.Close)
	// A configured provider naming an env_key that is not set.
	cfgHome := t.TempDir()
	os.MkdirAll(filepath.Join(cfgHome, "agent-ls"), 0o755)
	os.WriteFile(filepath.Join(cfgHome, "agent-ls", "config.toml"), []byte(`model_provider = "acme"
[model_providers.acme]
name = "Acme"
base_url = "`+m.URL()+`"
env_key = "ACME_TEST_KEY"
`), 0o644)
	c2 := &acpClient{}
	r2 := startACP(t, m, t.TempDir(), t.TempDir(), c2, "XDG_CONFIG_HOME="+cfgHome, "ACME_TEST_KEY=")
	init := r2.initialize(false)
	if len(init.AuthMethods) != 1 || init.AuthMethods[0].EnvVar == nil || init.AuthMethods[0].EnvVar.Vars[0].Name != "ACME_TEST_KEY" {
		b, _ := json.Marshal(init.AuthMethods)
		t.Fatalf("authMethods %s", b)
	}
	_, err := r2.conn.NewSession(r2.ctx, sdk.NewSessionRequest{Cwd: r2.dir, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32000 || !strings.Contains(re.Message, "ACME_TEST_KEY") {
		t.Fatalf("session/new without the key: %v", err)
	}
}

func TestACPCommandBehindPermission(t *testing.T) {
	dir := t.TempDir()
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", `{"command":["bash","-lc","echo allowed > out.txt; echo done"],"sandbox_permissions":"require_escalated","justification":"write a file"}`)),
		fakemodel.Say("ran it"),
		fakemodel.Answer(fakemodel.FunctionCall("c2", "shell", `{"command":["bash","-lc","echo nope > no.txt"],"sandbox_permissions":"require_escalated","justification":"again"}`)),
		fakemodel.Say("it was rejected"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{answer: pick("allow_once")}
	r := startACP(t, m, dir, t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	res, err := r.prompt(id, "write the file")
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(data) != "allowed\n" {
		t.Fatalf("out.txt %q", data)
	}
	c.mu.Lock()
	if len(c.perms) != 1 {
		t.Fatalf("%d permission requests", len(c.perms))
	}
	p := c.perms[0]
	c.mu.Unlock()
	if p.ToolCall.ToolCallId != "c1" || p.ToolCall.Kind == nil || *p.ToolCall.Kind != sdk.ToolKindExecute {
		t.Errorf("permission tool call %+v", p.ToolCall)
	}
	// Clients that show only the title with the options (codecompanion)
	// show the command as the call's card does, and why it is asked.
	if p.ToolCall.Title == nil || !strings.HasPrefix(*p.ToolCall.Title, "Run echo allowed > out.txt; echo done (") || !strings.Contains(*p.ToolCall.Title, "write a file") {
		t.Errorf("permission title %v", p.ToolCall.Title)
	}
	var kinds []string
	for _, o := range p.Options {
		kinds = append(kinds, string(o.OptionId)+"="+string(o.Kind))
	}
	if got := strings.Join(kinds, ","); got != "allow_once=allow_once,allow_always=allow_always,reject_once=reject_once,reject_always=reject_always" {
		t.Errorf("options %s", got)
	}
	// The option allowing always says what it covers; the question says
	// it in full.
	if name := p.Options[1].Name; name != "Always allow this exact command in this folder" {
		t.Errorf("allow_always option named %q", name)
	}
	if name := p.Options[3].Name; name != "Always reject this exact command in this folder" {
		t.Errorf("reject_always option named %q", name)
	}
	if b, _ := json.Marshal(p.ToolCall.Content); !strings.Contains(string(b), `covers this exact command (the same words, nothing longer) in this folder, run outside the sandbox`) {
		t.Errorf("the question does not say what \"always\" covers: %s", b)
	}
	raw := strings.Join(c.rawUpdates(), "\n")
	if !strings.Contains(raw, `"kind":"execute"`) || !strings.Contains(raw, `"status":"completed"`) {
		t.Errorf("tool call updates:\n%s", raw)
	}

	c.reset()
	c.mu.Lock()
	c.answer = pick("reject_once")
	c.mu.Unlock()
	res, err = r.prompt(id, "again")
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "no.txt")); err == nil {
		t.Fatal("a rejected command ran")
	}
	if raw := strings.Join(c.rawUpdates(), "\n"); !strings.Contains(raw, `"status":"failed"`) {
		t.Errorf("rejected call not failed:\n%s", raw)
	}
}

func TestACPCancelWhilePermissionPending(t *testing.T) {
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", `{"command":["bash","-lc","echo x > x.txt"],"sandbox_permissions":"require_escalated","justification":"why"}`)),
	)
	t.Cleanup(m.Close)
	c := &acpClient{permSeen: make(chan struct{}, 1)} // never answers
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	type result struct {
		res sdk.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := r.prompt(id, "go")
		done <- result{res, err}
	}()
	select {
	case <-c.permSeen:
	case <-r.ctx.Done():
		t.Fatal("no permission request")
	}
	if err := r.conn.Cancel(r.ctx, sdk.CancelNotification{SessionId: sdk.SessionId(id)}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil || got.res.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt after cancel: %+v %v", got.res, got.err)
	}
}

func TestACPPromptDuringPromptAndMalformed(t *testing.T) {
	gate := fakemodel.NewGate(2)
	m := fakemodel.New(fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("slow ", "answer ", "here")}}, Gate: gate})
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	done := make(chan error, 1)
	var res sdk.PromptResponse
	go func() {
		var err error
		res, err = r.prompt(id, "first")
		done <- err
	}()
	select {
	case <-gate.Reached():
	case <-r.ctx.Done():
		t.Fatal("the stream never started")
	}
	// (A prompt during a prompt waits: acp_queue_e2e_test.go.)
	// Garbage on the wire is answered, and the connection goes on.
	if _, err := io.WriteString(r.stdin, "this is not json\n[1,2]\n"); err != nil {
		t.Fatal(err)
	}
	gate.Release()
	if err := <-done; err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the first prompt: %+v %v", res, err)
	}
	if got := c.agentText(); got != "slow answer here" {
		t.Errorf("text %q", got)
	}
	if _, err := r.conn.ListSessions(r.ctx, sdk.ListSessionsRequest{}); err != nil {
		t.Fatalf("the connection after garbage: %v", err)
	}
}

func TestACPMalformedAnswered(t *testing.T) {
	m := fakemodel.New()
	t.Cleanup(m.Close)
	cmd := exec.Command(binary, "acp")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "XDG_STATE_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("{not json\n[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}]\n\"str\"\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"initialize\",\"params\":{\"protocolVersion\":1}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"session/list\",\"params\":{}}\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var msg struct {
			ID    any `json:"id"`
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.ID != nil {
			t.Fatalf("answer %q", sc.Text())
		}
		codes = append(codes, itoa(msg.Error.Code))
	}
	if got := strings.Join(codes, ","); got != "-32700,-32600,-32600,-32600,-32600" {
		t.Errorf("answers %s:\n%s", got, out)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestACPPatchesPlanLoadAndUndo(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("saved text\n"), 0o644)
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** Add File: new.txt\n+fresh\n*** End Patch"
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("p1", "update_plan", `{"plan":[{"step":"edit","status":"in_progress"},{"step":"check","status":"pending"}]}`)),
		fakemodel.Answer(fakemodel.CustomToolCall("e1", "apply_patch", patch)),
		fakemodel.Answer(fakemodel.FunctionCall("r1", "read_file", `{"file_path":"`+filepath.Join(dir, "b.txt")+`"}`)),
		fakemodel.Say("edited"),
		fakemodel.Say("after restart"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{buffers: map[string]string{filepath.Join(dir, "b.txt"): "UNSAVED buffer text\n"}}
	r := startACP(t, m, dir, state, c)
	r.initialize(true)
	id := r.newSession()
	res, err := r.prompt(id, "edit please")
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "one\nTWO\n" {
		t.Fatalf("a.txt %q", data)
	}
	c.mu.Lock()
	writes := strings.Join(c.writes, ",")
	c.mu.Unlock()
	if !strings.Contains(writes, "a.txt") || !strings.Contains(writes, "new.txt") {
		t.Errorf("fs/write_text_file calls: %s", writes)
	}
	raw := strings.Join(c.rawUpdates(), "\n")
	for _, want := range []string{`"sessionUpdate":"plan"`, `"type":"diff"`, `"oldText":"one\ntwo\n"`, `"newText":"one\nTWO\n"`, `"newText":"fresh\n"`, "UNSAVED buffer text"} {
		if !strings.Contains(raw, want) {
			t.Errorf("no %s in the updates:\n%s", want, raw)
		}
	}
	// the new file's diff block has no old text (the SDK's client reads the
	// "oldText": null on the wire as absent; the TypeScript client test
	// checks the null)
	for _, u := range c.rawUpdates() {
		if strings.Contains(u, `"newText":"fresh\n"`) && strings.Contains(u, `"path":"`+filepath.Join(dir, "new.txt")+`","type":"diff"`) {
			var tc struct {
				Content []map[string]any `json:"content"`
			}
			json.Unmarshal([]byte(u), &tc)
			for _, b := range tc.Content {
				if b["path"] == filepath.Join(dir, "new.txt") {
					if _, has := b["oldText"]; has {
						t.Errorf("new file with oldText: %v", b)
					}
				}
			}
		}
	}

	// Restart: load replays the conversation with its tool calls.
	r.stdin.Close()
	r.cmd.Wait()
	c2 := &acpClient{}
	r2 := startACP(t, m, dir, state, c2)
	r2.initialize(false)
	list, err := r2.conn.ListSessions(r2.ctx, sdk.ListSessionsRequest{Cwd: &dir})
	if err != nil || len(list.Sessions) != 1 || string(list.Sessions[0].SessionId) != id {
		t.Fatalf("session/list: %+v %v", list, err)
	}
	if _, err := r2.conn.LoadSession(r2.ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(id), Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	kinds := strings.Join(c2.kinds(), ",")
	if !strings.HasPrefix(kinds, "user_message_chunk,") || !strings.Contains(kinds, "plan") || !strings.Contains(kinds, "tool_call,tool_call_update") {
		t.Errorf("replay %s", kinds)
	}
	if raw := strings.Join(c2.rawUpdates(), "\n"); !strings.Contains(raw, `"oldText":"one\ntwo\n"`) || !strings.Contains(raw, "edited") {
		t.Errorf("replay without the diff or the answer:\n%s", raw)
	}
	// /undo restores the files of the last turn that changed any.
	res, err = r2.prompt(id, "/undo")
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/undo: %+v %v", res, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "one\ntwo\n" {
		t.Errorf("a.txt after /undo %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("new.txt is still there after /undo")
	}
	if !strings.Contains(c2.agentText(), "Undid") {
		t.Errorf("undo said %q", c2.agentText())
	}
}

func TestACPWriteFailureRollsBack(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B\n*** End Patch"
	m := fakemodel.New(fakemodel.Answer(fakemodel.CustomToolCall("e1", "apply_patch", patch)), fakemodel.Say("ok"))
	t.Cleanup(m.Close)
	c := &acpClient{failPath: filepath.Join(dir, "b.txt")}
	r := startACP(t, m, dir, t.TempDir(), c)
	r.initialize(true)
	id := r.newSession()
	if _, err := r.prompt(id, "edit"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "a\n", "b.txt": "b\n"} {
		if data, _ := os.ReadFile(filepath.Join(dir, name)); string(data) != want {
			t.Errorf("%s = %q after a failed set", name, data)
		}
	}
	reqs := m.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), "could not write") {
		t.Errorf("the model was not told what happened")
	}
}

// startACPArgs is startACP with extra flags for agent-ls acp.
func startACPArgs(t *testing.T, m *fakemodel.Server, dir string, client *acpClient, args ...string) *acpRun {
	t.Helper()
	saved := acpExtraArgs
	acpExtraArgs = args
	defer func() { acpExtraArgs = saved }()
	return startACP(t, m, dir, t.TempDir(), client)
}

func TestACPCancelKillsTheCommand(t *testing.T) {
	dir := t.TempDir()
	m := fakemodel.New(fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", `{"command":["bash","-lc","echo started; sleep 60; echo never > late.txt"]}`)))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, dir, t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		res, err := r.prompt(id, "run it")
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// Wait for the command's live output, then cancel. The output's line
	// ends with a newline (`started\n` in JSON); the call's title and
	// arguments, which say "echo started" too, do not.
	for !strings.Contains(strings.Join(c.rawUpdates(), "\n"), `started\n`) {
		select {
		case <-r.ctx.Done():
			t.Fatalf("no live output: %s", strings.Join(c.rawUpdates(), "\n"))
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := r.conn.Cancel(r.ctx, sdk.CancelNotification{SessionId: sdk.SessionId(id)}); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("stopReason %q", res.StopReason)
	}
	// The session goes on after a cancel.
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); err == nil {
		t.Error("the command went on after the cancel")
	}
}

func TestACPModelErrorAndRequestLimit(t *testing.T) {
	m := fakemodel.New(
		// The first request fails; the second turn's gets the reply.
		fakemodel.Step{Failures: fakemodel.Times(1, fakemodel.Failure{Status: 400, Body: `{"error":{"message":"model gpt-x does not exist","type":"invalid_request_error","code":"model_not_found"}}`}),
			Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.FunctionCall("c1", "read_file", `{"file_path":"x.txt"}`)}}},
	)
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACPArgs(t, m, t.TempDir(), c, "--max-requests", "1")
	r.initialize(false)
	id := r.newSession()
	_, err := r.prompt(id, "fail")
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "does not exist") {
		t.Fatalf("a model error: %v", err)
	}
	res, err := r.prompt(id, "one request only")
	if err != nil || res.StopReason != sdk.StopReasonMaxTurnRequests {
		t.Fatalf("at the request limit: %+v %v", res, err)
	}
}

func TestACPModesAndConfigOptions(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("ok"))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	res, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Modes == nil || res.Modes.CurrentModeId != "auto" || len(res.Modes.AvailableModes) != 3 || len(res.ConfigOptions) != 5 {
		t.Fatalf("modes %+v, %d config options", res.Modes, len(res.ConfigOptions))
	}
	if _, err := r.conn.SetSessionMode(r.ctx, sdk.SetSessionModeRequest{SessionId: res.SessionId, ModeId: "read-only"}); err != nil {
		t.Fatal(err)
	}
	set, err := r.conn.SetSessionConfigOption(r.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: res.SessionId, ConfigId: "reasoning_effort", Value: "high"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range set.ConfigOptions {
		got[string(o.Select.Id)] = string(o.Select.CurrentValue)
	}
	if got["mode"] != "read-only" || got["reasoning_effort"] != "high" || got["network"] != "ask" {
		t.Errorf("config options after the changes: %v", got)
	}
	// The network may only be narrowed from the config's (ask, the
	// default).
	_, err = r.conn.SetSessionConfigOption(r.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: res.SessionId, ConfigId: "network", Value: "on"}})
	if err == nil || !strings.Contains(err.Error(), "can only be narrowed") {
		t.Errorf("network on: %v", err)
	}
	set, err = r.conn.SetSessionConfigOption(r.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: res.SessionId, ConfigId: "network", Value: "off"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range set.ConfigOptions {
		if o.Select.Id == "network" && o.Select.CurrentValue != "off" {
			t.Errorf("network after off: %s", o.Select.CurrentValue)
		}
	}
	if _, err := r.prompt(string(res.SessionId), "hi"); err != nil {
		t.Fatal(err)
	}
	body := string(m.Requests()[0].Body)
	if !strings.Contains(body, `"effort":"high"`) || !strings.Contains(body, "read-only") {
		t.Errorf("the model request does not carry the session's settings:\n%.2000s", body)
	}
	_, err = r.conn.SetSessionConfigOption(r.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: res.SessionId, ConfigId: "mode", Value: "yolo"}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("an unknown mode: %v", err)
	}
}

func TestACPAllowAlwaysKeptAcrossLoad(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	cmd := `{"command":["bash","-lc","echo hi >> log.txt"],"sandbox_permissions":"require_escalated","justification":"log"}`
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", cmd)), fakemodel.Say("one"),
		fakemodel.Answer(fakemodel.FunctionCall("c2", "shell", cmd)), fakemodel.Say("two"),
		fakemodel.Answer(fakemodel.FunctionCall("c3", "shell", cmd)), fakemodel.Say("three"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{answer: pick("allow_always")}
	r := startACP(t, m, dir, state, c)
	r.initialize(false)
	id := r.newSession()
	for _, p := range []string{"first", "second"} {
		if res, err := r.prompt(id, p); err != nil || res.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("%s: %+v %v", p, res, err)
		}
	}
	c.mu.Lock()
	n := len(c.perms)
	c.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d permission requests for the same command after allow always", n)
	}
	r.stdin.Close()
	r.cmd.Wait()

	c2 := &acpClient{answer: pick("reject_once")}
	r2 := startACP(t, m, dir, state, c2)
	r2.initialize(false)
	if _, err := r2.conn.LoadSession(r2.ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(id), Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if res, err := r2.prompt(id, "third"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("third: %+v %v", res, err)
	}
	c2.mu.Lock()
	n = len(c2.perms)
	c2.mu.Unlock()
	if data, _ := os.ReadFile(filepath.Join(dir, "log.txt")); n != 0 || string(data) != "hi\nhi\nhi\n" {
		t.Errorf("after load: %d permission requests, log %q", n, data)
	}
}

// The answer to session/new goes out before any notification about the
// session (JetBrains hangs otherwise): read on the wire.
func TestACPSessionNewAnsweredFirst(t *testing.T) {
	m := fakemodel.New()
	t.Cleanup(m.Close)
	dir := t.TempDir()
	cmd := exec.Command(binary, "acp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "XDG_STATE_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	// A hang fails the test instead of stalling the suite.
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	// initialize and session/new pipelined: session/new is handled after
	// initialize even so.
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+quoteJSON(dir)+`,"mcpServers":[]}}`+"\n")
	sc := bufio.NewScanner(stdout)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), `"availableCommands"`) {
			break
		}
	}
	var order []string
	for _, l := range lines {
		var msg struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
		}
		json.Unmarshal([]byte(l), &msg)
		if msg.ID != nil {
			order = append(order, "answer")
		} else {
			order = append(order, msg.Method)
		}
	}
	if got := strings.Join(order, ","); got != "answer,answer,session/update" {
		t.Errorf("wire order %s:\n%s", got, strings.Join(lines, "\n"))
	}
}

// A hostile or confused client gets clear errors and the connection
// goes on.
func TestACPBadRequests(t *testing.T) {
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", `{"command":["bash","-lc","echo x > x.txt"],"sandbox_permissions":"require_escalated","justification":"x"}`)),
		fakemodel.Say("ok"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{answer: pick("allowEverythingForever")}
	dir := t.TempDir()
	r := startACP(t, m, dir, t.TempDir(), c)
	code := func(err error) int {
		var re *sdk.RequestError
		if errors.As(err, &re) {
			return re.Code
		}
		return 0
	}
	if _, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}}); code(err) != -32600 {
		t.Errorf("session/new before initialize: %v", err)
	}
	r.initialize(false)
	if _, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: "relative/dir", McpServers: []sdk.McpServer{}}); code(err) != -32602 {
		t.Errorf("a relative cwd: %v", err)
	}
	if _, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: filepath.Join(dir, "missing"), McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("a missing cwd was taken")
	}
	for _, id := range []string{"../../etc/passwd", "s-0000000000000000"} {
		if _, err := r.conn.LoadSession(r.ctx, sdk.LoadSessionRequest{SessionId: sdk.SessionId(id), Cwd: dir, McpServers: []sdk.McpServer{}}); code(err) != -32002 {
			t.Errorf("load %q: %v", id, err)
		}
	}
	if _, err := r.prompt("s-unknown", "hi"); code(err) != -32002 {
		t.Errorf("prompt to an unknown session: %v", err)
	}
	// A client's MCP server that cannot start is left out: the session
	// goes on.
	res, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{{Stdio: &sdk.McpServerStdio{Name: "x", Command: "/bin/false", Args: []string{}, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	// An option that was never offered rejects.
	if _, err := r.prompt(string(res.SessionId), "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Error("an unknown option allowed the command")
	}
	if !strings.Contains(r.log.String(), "an MCP server of the client is left out") {
		t.Error("the failed MCP server was not logged")
	}
}

func TestACPResumeAndClose(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	m := fakemodel.New(fakemodel.Say("first answer"), fakemodel.Say("second answer"))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, dir, state, c)
	r.initialize(false)
	id := r.newSession()
	if _, err := r.prompt(id, "remember the word giraffe"); err != nil {
		t.Fatal(err)
	}
	r.stdin.Close()
	r.cmd.Wait()

	c2 := &acpClient{}
	r2 := startACP(t, m, dir, state, c2)
	r2.initialize(false)
	if _, err := r2.conn.ResumeSession(r2.ctx, sdk.ResumeSessionRequest{SessionId: sdk.SessionId(id), Cwd: dir}); err != nil {
		t.Fatal(err)
	}
	if k := strings.Join(c2.kinds(), ","); k != "available_commands_update" {
		t.Errorf("resume sent %s (it replays nothing)", k)
	}
	if res, err := r2.prompt(id, "which word?"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after resume: %+v %v", res, err)
	}
	if body := string(m.Requests()[1].Body); !strings.Contains(body, "giraffe") || !strings.Contains(body, "first answer") {
		t.Error("the resumed session's next request lacks its history")
	}
	if _, err := r2.conn.CloseSession(r2.ctx, sdk.CloseSessionRequest{SessionId: sdk.SessionId(id)}); err != nil {
		t.Fatal(err)
	}
	var re *sdk.RequestError
	if _, err := r2.prompt(id, "still there?"); !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("prompt after close: %v", err)
	}
	// Closed, it is no longer held: another agent-ls, while this one
	// still runs, resumes it and goes on; so does this one after.
	m3 := fakemodel.New(fakemodel.Say("third answer"))
	t.Cleanup(m3.Close)
	r3 := startACP(t, m3, dir, state, &acpClient{})
	r3.initialize(false)
	if _, err := r3.conn.ResumeSession(r3.ctx, sdk.ResumeSessionRequest{SessionId: sdk.SessionId(id), Cwd: dir}); err != nil {
		t.Fatalf("resume in another agent-ls after close: %v", err)
	}
	if res, err := r3.prompt(id, "and now?"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt in another agent-ls: %+v %v", res, err)
	}
	if body := string(m3.Requests()[0].Body); !strings.Contains(body, "second answer") {
		t.Error("the other agent-ls's request lacks the history")
	}
}

// /compact summarises the session's history as agent/compact does: the
// prompt ends with end_turn, the client is told, and the next request
// carries the summary instead of the earlier conversation.
func TestACPCompactCommand(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("the first answer"), fakemodel.Say("ACP SUMMARY"), fakemodel.Say("the second answer"))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	if res, err := r.prompt(id, "the first question"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("first prompt: %+v %v", res, err)
	}
	c.reset()
	if res, err := r.prompt(id, "/compact"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/compact: %+v %v", res, err)
	}
	if !strings.Contains(c.agentText(), "summarised") {
		t.Errorf("/compact said %q", c.agentText())
	}
	if _, err := r.prompt(id, "the second question"); err != nil {
		t.Fatal(err)
	}
	body := string(m.Requests()[2].Body)
	if !strings.Contains(body, "ACP SUMMARY") || strings.Contains(body, "the first question") {
		t.Errorf("the request after /compact: %.400s", body)
	}
}

// A model that refuses ends the prompt with stopReason refusal, its text
// shown; the session goes on.
func TestACPRefusal(t *testing.T) {
	refusal := fakemodel.Item{Type: fakemodel.TypeMessage, Text: fakemodel.Words("I can't help with that."), Refusal: true}
	m := fakemodel.New(fakemodel.Answer(refusal), fakemodel.Say("fine"))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	res, err := r.prompt(id, "do something bad")
	if err != nil || res.StopReason != sdk.StopReasonRefusal {
		t.Fatalf("refused prompt: %+v %v", res, err)
	}
	if !strings.Contains(c.agentText(), "I can't help with that.") {
		t.Errorf("the refusal's text: %q", c.agentText())
	}
	if res, err := r.prompt(id, "something else"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("the next prompt: %+v %v", res, err)
	}
}

// The settings resolved at start are the agent's until the config files
// change: a problem in them is told once, and a change reaches the next
// session.
func TestACPConfigToldOnceAndFollowed(t *testing.T) {
	m := fakemodel.New()
	t.Cleanup(m.Close)
	cfgHome := t.TempDir()
	file := filepath.Join(cfgHome, "agent-ls", "config.toml")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("no_such_setting = 1\n"), 0o644)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c, "XDG_CONFIG_HOME="+cfgHome)
	r.initialize(false)
	first, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if first.Modes == nil || first.Modes.CurrentModeId != "auto" {
		t.Fatalf("first session's modes %+v", first.Modes)
	}
	os.WriteFile(file, []byte("sandbox_mode = \"read-only\"\n"), 0o644)
	second, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: r.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if second.Modes == nil || second.Modes.CurrentModeId != "read-only" {
		t.Errorf("after the config file changed, the new session's modes %+v", second.Modes)
	}
	if n := strings.Count(r.log.String(), "no_such_setting"); n != 1 {
		t.Errorf("the unknown setting was told %d times:\n%s", n, r.log.String())
	}
}

// The child that probes the sandbox before Go starts is reaped even when
// no turn ever asks what the sandbox enforces: no zombie stays behind
// for as long as the editor keeps agent-ls running.
func TestACPLeavesNoZombie(t *testing.T) {
	m := fakemodel.New()
	t.Cleanup(m.Close)
	r := startACP(t, m, t.TempDir(), t.TempDir(), &acpClient{})
	r.initialize(false)
	pid := r.cmd.Process.Pid
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	if len(tasks) == 0 {
		t.Skip("this kernel does not list a process's children in /proc (CONFIG_PROC_CHILDREN)")
	}
	zombies := func() []string {
		var z []string
		for _, f := range tasks {
			data, _ := os.ReadFile(f)
			for _, child := range strings.Fields(string(data)) {
				stat, _ := os.ReadFile(filepath.Join("/proc", child, "stat"))
				// pid (comm) state ...: the state follows the last ')'.
				if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
					z = append(z, child)
				}
			}
		}
		return z
	}
	deadline := time.Now().Add(10 * time.Second)
	for z := zombies(); len(z) > 0; z = zombies() {
		if time.Now().After(deadline) {
			t.Fatalf("agent-ls acp (pid %d) keeps zombie children %v", pid, z)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SIGTERM, SIGINT and SIGHUP end agent-ls acp through its cleanup, with
// status 0, not by the signal's default effect.
func TestACPStopsCleanlyOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		m := fakemodel.New()
		t.Cleanup(m.Close)
		r := startACP(t, m, t.TempDir(), t.TempDir(), &acpClient{})
		r.initialize(false)
		r.newSession()
		if err := r.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if err := r.cmd.Wait(); err != nil {
			t.Errorf("%v: %v\n%s", sig, err, r.log.String())
		}
	}
}

// Command acpbench measures ACP agents side by side on the same fake
// model (internal/model/fakemodel, on loopback, decoding of each request
// only the fields its answer reads: see SkipDecoding): the time from spawning
// the agent to its first agent_message_chunk, from spawning it to the end
// of a turn that runs one command, and from session/cancel during a
// model stream to the prompt's answer, and a PASS or FAIL line for
// agent-ls's spawn → first chunk against its ceiling (30 ms).
//
//	go run ./bench/acpbench -bin bin/agent-ls [-codex-acp path/to/codex-acp] [-floor path/to/nullagent] [-runs 10]
//
// agent-ls runs as `agent-ls acp`; Codex's adapter (npm
// @zed-industries/codex-acp), when given, with a model provider of its own
// pointed at the fake model (it ignores OPENAI_BASE_URL) and its CODEX_HOME
// in -codex-home. Each agent keeps its state across runs, as on a user's
// machine: agent-ls its sessions in -state-home (XDG_STATE_HOME), Codex
// in its CODEX_HOME. With -floor, it also measures the do-nothing agent of
// bench/acpbench/nullagent on the first chunk: the floor that the harness,
// the start of a small Go program and one model request set under any
// agent's figure here. The agents take turns, one run of each at a time.
// Numbers are printed, never asserted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// agentKind says how to start one agent and which tool runs a command.
type agentKind struct {
	name    string
	command func(modelURL string) (argv []string, env []string)
	// commandCall is the model's call that runs `echo hi`; nil for an
	// agent measured on the first chunk only.
	commandCall *fakemodel.Item
}

// firstChunkCeiling is the time from spawning agent-ls acp to the first
// agent_message_chunk it must stay within on the machine it runs on.
const firstChunkCeiling = 30 * time.Millisecond

// options are the command line's.
type options struct {
	bin, codex, codexHome, stateHome, floor string
	runs                                    int
}

// results are one agent's measurements.
type results struct{ first, round, cancel []time.Duration }

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "bin/agent-ls", "the agent-ls binary")
	flag.StringVar(&o.codex, "codex-acp", "", "Codex's ACP adapter binary (empty: agent-ls alone)")
	flag.StringVar(&o.codexHome, "codex-home", ".cache/codex-home", "CODEX_HOME for Codex's adapter (not under /tmp: it refuses its sandbox helpers there)")
	flag.StringVar(&o.stateHome, "state-home", ".cache/acpbench-state", "XDG_STATE_HOME for agent-ls (its kept sessions)")
	flag.StringVar(&o.floor, "floor", "", "the do-nothing agent of bench/acpbench/nullagent (empty: not measured)")
	flag.IntVar(&o.runs, "runs", 10, "runs of each measurement")
	flag.Parse()
	agents := agentsOf(o)
	res := measureAll(agents, o.runs)
	printResults(agents, res)
	verdict := "FAIL"
	if len(res[0].first) > 0 && stats.Median(res[0].first) <= firstChunkCeiling {
		verdict = "PASS"
	}
	fmt.Printf("%s agent-ls acp spawn → first chunk median %s (ceiling %v)\n", verdict, median(res[0].first), firstChunkCeiling)
}

// agentsOf lists the agents to measure, agent-ls first.
func agentsOf(o options) []agentKind {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	bin, state := abs(o.bin), abs(o.stateHome)
	os.MkdirAll(state, 0o700)
	agents := []agentKind{{
		name: "agent-ls acp",
		command: func(url string) ([]string, []string) {
			return []string{bin, "acp"}, []string{"XDG_STATE_HOME=" + state, "OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=bench", "AGENT_LS_MODEL=gpt-5-codex"}
		},
		commandCall: ptr(fakemodel.FunctionCall("c1", "shell", `{"command":["echo","hi"]}`)),
	}}
	if o.floor != "" {
		floor := abs(o.floor)
		agents = append(agents, agentKind{
			name: "do-nothing",
			command: func(url string) ([]string, []string) {
				return []string{floor}, []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=bench"}
			},
		})
	}
	if o.codex != "" {
		home, codex := abs(o.codexHome), abs(o.codex)
		os.MkdirAll(home, 0o755)
		agents = append(agents, agentKind{
			name: "codex-acp",
			command: func(url string) ([]string, []string) {
				return []string{codex, "-c", "model_provider=fake", "-c", "model=gpt-5",
						"-c", `model_providers.fake={name="fake",base_url="` + url + `",env_key="OPENAI_API_KEY",wire_api="responses"}`},
					[]string{"CODEX_HOME=" + home, "OPENAI_API_KEY=bench"}
			},
			commandCall: ptr(fakemodel.FunctionCall("c1", "exec_command", `{"cmd":"echo hi"}`)),
		})
	}
	return agents
}

// measureAll runs each measurement runs times. The agents take turns,
// run by run: this machine's speed drifts from minute to minute, and each
// agent gets the same share of it.
func measureAll(agents []agentKind, runs int) []results {
	res := make([]results, len(agents))
	for range runs {
		for i, a := range agents {
			for _, m := range []struct {
				into *[]time.Duration
				run  func(agentKind) (time.Duration, error)
			}{{&res[i].first, firstChunk}, {&res[i].round, commandRound}, {&res[i].cancel, cancelLatency}} {
				if a.commandCall == nil && m.into != &res[i].first {
					continue
				}
				settle()
				d, err := m.run(a)
				if err != nil {
					fmt.Fprintf(os.Stderr, "acpbench: %s: %v\n", a.name, err)
					continue
				}
				*m.into = append(*m.into, d)
			}
		}
	}
	return res
}

// printResults prints the medians, and agent-ls's against the last
// agent's when that one ran commands too.
func printResults(agents []agentKind, res []results) {
	fmt.Printf("%-14s %26s %28s %26s\n", "agent", "spawn → first chunk", "spawn → command round trip", "session/cancel → answer")
	for i, a := range agents {
		if a.commandCall == nil {
			fmt.Printf("%-14s %26s %28s %26s\n", a.name, median(res[i].first), "-", "-")
			continue
		}
		fmt.Printf("%-14s %26s %28s %26s\n", a.name, median(res[i].first), median(res[i].round), median(res[i].cancel))
	}
	if last := len(agents) - 1; last > 0 && agents[last].commandCall != nil {
		ratio := func(x, y []time.Duration) string {
			if len(x) == 0 || len(y) == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1fx", float64(stats.Median(y))/float64(stats.Median(x)))
		}
		fmt.Printf("%-14s %26s %28s %26s\n", "agent-ls is", ratio(res[0].first, res[last].first), ratio(res[0].round, res[last].round), ratio(res[0].cancel, res[last].cancel))
	}
}

// settle gives each measurement the same start: the garbage of the one
// before (a big request body parsed by the fake model, say) collected
// now rather than during it, and what the agent before left running
// (its exit, its children's) given time to end.
func settle() {
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
}

func ptr[T any](v T) *T { return &v }

func median(d []time.Duration) string {
	if len(d) == 0 {
		return "failed"
	}
	return fmt.Sprintf("%.1f ms (n=%d)", float64(stats.Median(d).Microseconds())/1000, len(d))
}

// client records what the agent streams and allows what it asks.
type client struct {
	mu      sync.Mutex
	onChunk func()
}

func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	for _, o := range p.Options {
		if o.Kind == sdk.PermissionOptionKindAllowOnce {
			return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: o.OptionId}}}, nil
		}
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
}

func (c *client) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	if n.Update.AgentMessageChunk != nil {
		c.mu.Lock()
		f := c.onChunk
		c.onChunk = nil
		c.mu.Unlock()
		if f != nil {
			f()
		}
	}
	return nil
}

var errNo = errors.New("not offered")

func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNo
}
func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNo
}
func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNo
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNo
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNo
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNo
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNo
}

// session is one spawned agent with an ACP session open in a fresh
// directory.
type session struct {
	conn  *sdk.ClientSideConnection
	cl    *client
	id    sdk.SessionId
	ctx   context.Context
	start time.Time
	stop  func()
}

// spawn starts the agent against m and opens a session; start is the
// moment of the spawn.
func spawn(a agentKind, m *fakemodel.Server) (*session, error) {
	dir, err := os.MkdirTemp("", "acpbench-")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	argv, env := a.command(m.URL())
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = io.Discard
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	stop := func() {
		cancel()
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(dir)
	}
	cl := &client{}
	conn := sdk.NewClientSideConnection(cl, stdin, stdout)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientInfo: &sdk.Implementation{Name: "acpbench", Version: "1"}}); err != nil {
		stop()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		stop()
		return nil, fmt.Errorf("session/new: %w", err)
	}
	return &session{conn: conn, cl: cl, id: res.SessionId, ctx: ctx, start: start, stop: stop}, nil
}

func (s *session) prompt(text string) (sdk.PromptResponse, error) {
	return s.conn.Prompt(s.ctx, sdk.PromptRequest{SessionId: s.id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// firstChunk: spawn → the first agent_message_chunk of a one-line answer.
func firstChunk(a agentKind) (time.Duration, error) {
	m := fakemodel.New(fakemodel.Say("hello there"))
	m.SkipDecoding()
	defer m.Close()
	s, err := spawn(a, m)
	if err != nil {
		return 0, err
	}
	defer s.stop()
	got := make(chan time.Time, 1)
	s.cl.mu.Lock()
	s.cl.onChunk = func() { got <- time.Now() }
	s.cl.mu.Unlock()
	if _, err := s.prompt("say hello"); err != nil {
		return 0, err
	}
	select {
	case t := <-got:
		return t.Sub(s.start), nil
	default:
		return 0, errors.New("no agent_message_chunk")
	}
}

// commandRound: spawn → the answer of a turn that runs one command.
func commandRound(a agentKind) (time.Duration, error) {
	m := fakemodel.New(fakemodel.Answer(*a.commandCall), fakemodel.Say("done"))
	m.SkipDecoding()
	defer m.Close()
	s, err := spawn(a, m)
	if err != nil {
		return 0, err
	}
	defer s.stop()
	res, err := s.prompt("run echo hi")
	if err != nil {
		return 0, err
	}
	if res.StopReason != sdk.StopReasonEndTurn || len(m.Requests()) != 2 {
		return 0, fmt.Errorf("the turn stopped %s after %d model requests", res.StopReason, len(m.Requests()))
	}
	return time.Since(s.start), nil
}

// cancelLatency: session/cancel after the first chunk of a stream that
// never ends → the prompt's answer.
func cancelLatency(a agentKind) (time.Duration, error) {
	gate := fakemodel.NewGate(6) // two deltas, then the stream waits
	defer gate.Release()
	m := fakemodel.New(fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("a ", "stream ", "that ", "never ", "ends")}}, Gate: gate})
	m.SkipDecoding()
	defer m.Close()
	s, err := spawn(a, m)
	if err != nil {
		return 0, err
	}
	defer s.stop()
	sent := make(chan time.Time, 1)
	s.cl.mu.Lock()
	s.cl.onChunk = func() {
		go func() {
			t := time.Now()
			s.conn.Cancel(s.ctx, sdk.CancelNotification{SessionId: s.id})
			sent <- t
		}()
	}
	s.cl.mu.Unlock()
	res, err := s.prompt("stream")
	end := time.Now()
	if err != nil {
		return 0, err
	}
	if res.StopReason != sdk.StopReasonCancelled {
		return 0, fmt.Errorf("stopReason %s after cancel", res.StopReason)
	}
	return end.Sub(<-sent), nil
}

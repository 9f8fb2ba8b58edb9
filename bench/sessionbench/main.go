// Command sessionbench measures kept sessions: how long the real server
// takes to bring back a session of 1,000 turns (agent/resumeSession: the
// record read, the session restored, its history items sent to the
// editor), and what recording one item costs a turn.
//
//	go run ./bench/sessionbench -bin bin/agent-ls [-turns 1000] [-runs 10]
//
// The session is written through the same store the server records with,
// turn by turn as a working session would have it: a prompt, reasoning, a
// command with its output, a patch with its diff, an answer, usage.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/session"
)

func main() {
	bin := flag.String("bin", "bin/agent-ls", "the agent-ls binary")
	turns := flag.Int("turns", 1000, "turns in the session")
	runs := flag.Int("runs", 10, "server starts, one resume each")
	flag.Parse()
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	if err := run(*bin, *turns, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "sessionbench:", err)
		os.Exit(1)
	}
}

func run(bin string, turns, runs int) error {
	state, err := os.MkdirTemp("", "sessionbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	ws := filepath.Join(state, "workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return err
	}
	st := session.New(filepath.Join(state, "agent-ls", "sessions"), nil)
	id := "s-sessionbench"
	obs, err := st.Observe(agent.SessionInfo{SessionID: id, Cwd: ws, Model: "bench-model", ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}, false)
	if err != nil {
		return err
	}
	w := &writer{obs: obs, session: id}
	var appends []time.Duration
	for n := 1; n <= turns; n++ {
		appends = append(appends, w.turn(n)...)
	}
	st.Close()
	fi, err := os.Stat(filepath.Join(st.Dir(), id+".jsonl"))
	if err != nil {
		return err
	}
	slices.Sort(appends)
	fmt.Printf("recording an item (%d items, %d turns, %.1f MiB record): median %.1f µs  p99 %.1f µs  (goal < 1 ms)\n",
		len(appends), turns, float64(fi.Size())/(1<<20), usf(appends[len(appends)/2]), usf(appends[len(appends)*99/100]))

	var resumes, cpus []time.Duration
	for range runs {
		d, cpu, items, err := resume(bin, state, ws, id)
		if err != nil {
			return err
		}
		if items < turns*2 {
			return fmt.Errorf("the resumed session has %d items for %d turns", items, turns)
		}
		resumes, cpus = append(resumes, d), append(cpus, cpu)
	}
	slices.Sort(resumes)
	slices.Sort(cpus)
	fmt.Printf("agent/resumeSession of %d turns, through the server: median %.1f ms  max %.1f ms  (goal < 200 ms); the server's CPU time for it: median %.1f ms\n",
		turns, msf(resumes[len(resumes)/2]), msf(resumes[len(resumes)-1]), msf(cpus[len(cpus)/2]))
	fmt.Println("   (the time is the editor's, from request to decoded answer; on a loaded machine it grows, the CPU time much less)")
	emitResume(fmt.Sprintf("agent/resumeSession of %d turns", turns), resumes[len(resumes)/2], 200*time.Millisecond)
	return nil
}

// cpuTime is the CPU time the process pid has used so far: the sum over
// its threads of the scheduler's count, in nanoseconds (0 where /proc
// does not say).
func cpuTime(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		var ns int64
		if _, err := fmt.Sscan(string(b), &ns); err == nil {
			total += time.Duration(ns)
		}
	}
	return total
}

// resume starts a server on the state directory and times one
// agent/resumeSession, answer received and decoded, and the server's CPU
// time for it.
func resume(bin, state, ws, id string) (took, cpu time.Duration, items int, err error) {
	cmd := exec.Command(bin, "serve", "--log-level", "error")
	cmd.Dir = ws
	// The model is never asked: resuming needs no request.
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_API_KEY=bench", "AGENT_LS_MODEL=bench-model")
	cmd.Stderr = os.Stderr
	ed, err := editor.Start(cmd, editor.Config{})
	if err != nil {
		return 0, 0, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	defer func() {
		ed.Shutdown(ctx)
		ed.Exit(ctx)
	}()
	if _, err := ed.Initialize(ctx, editor.Options{Events: true, WorkspaceFolders: []string{ws}}); err != nil {
		return 0, 0, 0, err
	}
	var res struct {
		Items []json.RawMessage `json:"items"`
	}
	cpu0, start := cpuTime(cmd.Process.Pid), time.Now()
	if err := ed.Request(ctx, "agent/resumeSession", map[string]any{"sessionId": id}, &res); err != nil {
		return 0, 0, 0, err
	}
	return time.Since(start), cpuTime(cmd.Process.Pid) - cpu0, len(res.Items), nil
}

// writer records turns and times each item recorded.
type writer struct {
	obs     agent.Observer
	session string
	seq     int64
}

func (w *writer) turn(n int) []time.Duration {
	var took []time.Duration
	turn := fmt.Sprintf("%s-t%d", w.session, n)
	item := func(it model.Item) {
		start := time.Now()
		w.obs.Item(it)
		took = append(took, time.Since(start))
	}
	send := func(p event.Payload) {
		w.seq++
		start := time.Now()
		w.obs.Event(event.Event{SessionID: w.session, TurnID: turn, Seq: w.seq, Payload: p})
		took = append(took, time.Since(start))
	}
	prompt := fmt.Sprintf("Step %d: handle empty input in the tokenizer and cover it with a test.", n)
	item(model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: prompt})
	send(event.TurnStarted{Prompt: prompt})
	item(model.Item{Type: model.ItemReasoning, ID: "rs_" + turn, Summary: []string{"Reading the tokenizer."}, EncryptedContent: strings.Repeat("x", 1000)})
	send(event.Reasoning{ItemID: "rs_" + turn, Text: "Reading the tokenizer."})
	cmd := `{"command":["go","test","./tokenizer/..."]}`
	out := strings.Repeat("=== RUN   TestTokenize\n--- PASS: TestTokenize (0.00s)\n", 30)
	item(model.Item{Type: model.ItemFunctionCall, ID: "fc_" + turn, CallID: "exec_" + turn, Name: "shell", Arguments: cmd})
	send(event.ToolCall{CallID: "exec_" + turn, Tool: "shell", Kind: event.KindExecute, Title: "go test ./tokenizer/...", Arguments: json.RawMessage(cmd)})
	send(event.ToolResult{CallID: "exec_" + turn, Tool: "shell", Status: event.ToolCompleted, Output: out, DurationMs: 900})
	item(model.Item{Type: model.ItemFunctionCallOutput, CallID: "exec_" + turn, Output: out})
	edit := "*** Begin Patch\n*** Update File: tokenizer.go\n@@\n func Tokenize(s string) []Token {\n+\tif s == \"\" {\n+\t\treturn nil\n+\t}\n*** End Patch"
	diff := "--- a/tokenizer.go\n+++ b/tokenizer.go\n@@ -1,2 +1,5 @@\n func Tokenize(s string) []Token {\n+\tif s == \"\" {\n+\t\treturn nil\n+\t}\n"
	item(model.Item{Type: model.ItemCustomToolCall, ID: "ctc_" + turn, CallID: "edit_" + turn, Name: "apply_patch", Input: edit})
	send(event.ToolCall{CallID: "edit_" + turn, Tool: "apply_patch", Kind: event.KindEdit, Title: "Edit tokenizer.go", Arguments: mustJSON(edit)})
	send(event.FileChange{CallID: "edit_" + turn, Status: event.ChangeApplied, Diff: diff,
		Changes: []event.FileChangeEntry{{URI: "file:///workspace/tokenizer.go", Kind: event.ChangeUpdate, Additions: 3}}})
	send(event.ToolResult{CallID: "edit_" + turn, Tool: "apply_patch", Status: event.ToolCompleted, Output: "Done: updated tokenizer.go", DurationMs: 4})
	item(model.Item{Type: model.ItemCustomToolCallOutput, CallID: "edit_" + turn, Output: "Done: updated tokenizer.go"})
	text := "Empty input now yields no tokens; TestTokenizeEmpty checks it."
	item(model.Item{Type: model.ItemMessage, ID: "msg_" + turn, Role: model.RoleAssistant, Text: text})
	send(event.Message{ItemID: "msg_" + turn, Text: text})
	send(event.Usage{InputTokens: 15000, CachedInputTokens: 14000, OutputTokens: 250})
	send(event.TurnCompleted{Status: event.StatusCompleted, LastMessage: text, Diff: diff})
	return took
}

func mustJSON(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func usf(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

package main

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// The demo's sample project. Files ending in .txt lose that ending when
// copied (a go.mod here would make the folder its own module).
//
//go:embed all:_demo
var demoFiles embed.FS

const demoUsage = `Usage: agent-ls demo [--pace DURATION]

Runs an offline, scripted session end to end: copies a small sample project
into a temporary folder, starts the agent-ls server, drives it over stdio
exactly as an editor would (a code action on a selection, then the turn), with
a built-in scripted model, and shows what an editor user sees. Needs no
network and no API key, and leaves nothing behind.

Flags:
`

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pace := fs.Duration("pace", 12*time.Millisecond, "pause between streamed pieces of the scripted answer")
	fs.Usage = func() { fmt.Fprint(stderr, demoUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	// Long enough for a first sandboxed Go build, which fills agent-ls's
	// own build cache (the user's is read-only in the sandbox).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := demo(ctx, stdout, *pace); err != nil {
		fmt.Fprintf(stderr, "agent-ls demo: %v\n", err)
		return 1
	}
	return 0
}

func demo(ctx context.Context, out io.Writer, pace time.Duration) error {
	dir, err := os.MkdirTemp("", "agent-ls-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := copySample(dir); err != nil {
		return fmt.Errorf("copy the sample project: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the agent-ls binary: %w", err)
	}

	story := &demoStory{}
	model := fakemodel.New(demoScript(pace, story)...)
	defer model.Close()

	say := func(format string, a ...any) { fmt.Fprintf(out, format, a...) }
	say("agent-ls demo: an editor, the agent-ls server and a scripted model, all on this machine.\n")
	say("Sample project copied to %s\n", dir)
	if cache := sandbox.Probe().CacheRoot; cache != "" && !exists(filepath.Join(cache, "go-build")) {
		say("The sandboxed `go test` gets its own build cache in %s; filling it the first time takes a while.\n", cache)
	}
	say("\n")

	var serverLog strings.Builder
	cmd := exec.Command(self, "serve", "--stdio", "--log-level", "warn")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"OPENAI_BASE_URL="+model.URL(),
		"OPENAI_API_KEY=demo-key",
		"AGENT_LS_MODEL=gpt-5-codex",
		"AGENT_LS_WIRE_API=responses",
	)
	cmd.Stderr = &serverLog
	// The editor shows approval requests as a message with buttons; the
	// demo user clicks "Allow once".
	// shown counts the events printed so far: a question is printed only
	// once every event that came before it has been (the server sends
	// them first; the printer runs on its own goroutine).
	var shown atomic.Int64
	var ed *editor.Editor
	ask := func(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		for received := int64(len(ed.Events())); shown.Load() < received && ctx.Err() == nil; {
			time.Sleep(time.Millisecond)
		}
		say("\n▌ The editor pops up a question from agent-ls:\n")
		for _, line := range strings.Split(p.Message, "\n") {
			say("    │ %s\n", line)
		}
		var titles []string
		for _, a := range p.Actions {
			titles = append(titles, "["+a.Title+"]")
		}
		choice := "Allow once"
		if strings.Contains(p.Message, "wants to run") {
			choice = "Allow always" // the tests may run again without asking
		}
		say("    │ %s\n▌ The user clicks [%s].\n\n", strings.Join(titles, " "), choice)
		return &protocol.MessageActionItem{Title: choice}, nil
	}
	ed, err = editor.Start(cmd, editor.Config{ShowMessageRequest: ask})
	if err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	defer ed.Disconnect()

	init, err := ed.Initialize(ctx, editor.Options{
		Events: true, Progress: true, ApplyEdit: true, DocumentChanges: true,
		MessageActionItems: true, WorkspaceFolders: []string{dir}, ClientName: "agent-ls demo editor",
		// "untrusted": the agent asks before any command that is not
		// known to only read.
		InitializationOptions: map[string]any{"approvalPolicy": "untrusted"},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	ver, _ := init.ServerInfo.Version.Get()
	name := init.ServerInfo.Name + " " + ver
	say("▌ Editor started %s over stdio and initialized it.\n", name)

	file := filepath.Join(dir, "convert.go")
	text, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	uri := "file://" + file
	if err := ed.Open(ctx, uri, "go", string(text)); err != nil {
		return err
	}
	// The user selects FahrenheitToCelsius (lines 10-14 of the file).
	sel := protocol.Range{Start: protocol.Position{Line: 9}, End: protocol.Position{Line: 14}}
	say("▌ Opened convert.go and selected lines %d-%d:\n\n", sel.Start.Line+1, sel.End.Line)
	lines := strings.Split(string(text), "\n")
	for i := sel.Start.Line; i < sel.End.Line; i++ {
		say("    %2d │ %s\n", i+1, lines[i])
	}

	var actions []json.RawMessage
	err = ed.Request(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]string{"uri": uri},
		"range":        sel,
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions)
	if err != nil {
		return fmt.Errorf("code actions: %w", err)
	}
	var fix *protocol.Command
	say("\n▌ Code actions offered for the selection:\n")
	for _, raw := range actions {
		var a struct {
			Title   string            `json:"title"`
			Command *protocol.Command `json:"command"`
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return fmt.Errorf("decode code action: %w", err)
		}
		say("    • %s\n", a.Title)
		if a.Title == "Agent: Fix this" {
			fix = a.Command
		}
	}
	if fix == nil {
		return errors.New("the server offered no \"Agent: Fix this\" action")
	}
	say("\n▌ The user picks \"Agent: Fix this\"; the editor runs its command.\n\n")

	events := ed.EventStream()
	var started struct {
		SessionID string `json:"sessionId"`
		TurnID    string `json:"turnId"`
	}
	if err := ed.Request(ctx, "workspace/executeCommand", map[string]any{
		"command": fix.Command, "arguments": fix.Arguments,
	}, &started); err != nil {
		return fmt.Errorf("start the turn: %w", err)
	}

	status, err := showTurn(ctx, out, events, started.TurnID, &shown)
	if err != nil {
		return err
	}
	if end, err := ed.WaitProgress(ctx, func(p editor.Progress) bool { return p.Kind == "end" }); err == nil {
		say("▌ The progress in the editor's status bar ended with %q.\n", end.Message)
	}
	if err := ed.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	code, err := ed.Exit(ctx)
	if err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	if code != 0 {
		return fmt.Errorf("the server exited with status %d; its log:\n%s", code, serverLog.String())
	}
	if status != "completed" {
		return fmt.Errorf("the turn ended %s; server log:\n%s", status, serverLog.String())
	}
	if p := story.Problem(); p != "" {
		return fmt.Errorf("the session did not go as the demo expects: %s (see the output above)", p)
	}
	say("▌ Shut the server down (exit status 0); removing %s.\n", dir)
	return nil
}

// showTurn prints the turn's events as an editor user would see them and
// returns the turn's final status.
func showTurn(ctx context.Context, out io.Writer, events *editor.EventStream, turnID string, shown *atomic.Int64) (string, error) {
	midLine := false
	endLine := func() {
		if midLine {
			fmt.Fprintln(out)
			midLine = false
		}
	}
	for {
		ev, err := events.Next(ctx)
		if err != nil {
			return "", fmt.Errorf("waiting for the turn's events: %w", err)
		}
		shown.Add(1)
		if ev.TurnID != turnID {
			continue
		}
		switch ev.Type {
		case "turnStarted":
			fmt.Fprintf(out, "── turn started: %s\n", textcut.Summary(ev.Prompt, 0))
		case "reasoning":
			endLine()
			fmt.Fprintf(out, "   (thinking) %s\n", ev.Text)
		case "plan":
			endLine()
			fmt.Fprintln(out, "── plan")
			for _, s := range ev.Steps {
				mark := "☐"
				switch s.Status {
				case "in_progress":
					mark = "▶"
				case "completed":
					mark = "☑"
				}
				fmt.Fprintf(out, "   %s %s\n", mark, s.Step)
			}
		case "toolCall":
			endLine()
			fmt.Fprintf(out, "── tool: %s\n", ev.Title)
		case "execOutput":
			for _, line := range strings.SplitAfter(ev.Chunk, "\n") {
				if line != "" {
					fmt.Fprintf(out, "   │ %s", line)
				}
			}
			if !strings.HasSuffix(ev.Chunk, "\n") {
				fmt.Fprintln(out)
			}
		case "approval":
			fmt.Fprintf(out, "   (approval %s: %s)\n", ev.Kind, ev.Decision)
		case "toolResult":
			fmt.Fprintf(out, "   → %s: %s\n", ev.Status, textcut.Summary(ev.Output, 0))
		case "messageDelta":
			if !midLine {
				fmt.Fprint(out, "── answer\n")
			}
			fmt.Fprint(out, ev.Delta)
			midLine = true
		case "message":
			endLine()
		case "fileChange":
			endLine()
			fmt.Fprintf(out, "── file change (%s)\n", ev.Status)
			for _, line := range strings.Split(strings.TrimRight(ev.Diff, "\n"), "\n") {
				fmt.Fprintf(out, "   %s\n", line)
			}
		case "usage":
			fmt.Fprintf(out, "   (tokens: %d in, %d out)\n", ev.InputTokens, ev.OutputTokens)
		case "retry":
			endLine()
			fmt.Fprintf(out, "   (retrying: %s)\n", ev.Message)
		case "turnCompleted":
			endLine()
			fmt.Fprintf(out, "── turn %s", ev.Status)
			if ev.Error != "" {
				fmt.Fprintf(out, ": %s", ev.Error)
			}
			fmt.Fprint(out, "\n\n")
			return ev.Status, nil
		}
	}
}

func copySample(dir string) error {
	return fs.WalkDir(demoFiles, "_demo", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := demoFiles.ReadFile(path)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(path, "_demo/"), ".txt")
		target := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

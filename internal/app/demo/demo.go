// Package demo is `agent-ls demo`: an offline, scripted session end to
// end. It copies a sample project into a temporary folder, starts this
// executable as `agent-ls serve`, drives it over stdio with the
// scriptable editor (internal/editor) as an editor would, against the
// fake model server (internal/model/fakemodel) with a script of its own,
// and shows what the editor's user sees. It is the only package of
// agent-ls that links the editor fake and the fake model.
package demo

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
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

// demoRun is one run of the demo: the sample project, the editor and
// what it has shown.
type demoRun struct {
	out io.Writer
	dir string
	// configHome holds the server's XDG_CONFIG_HOME (empty) and
	// XDG_STATE_HOME.
	configHome string
	ed         *editor.Editor
	serverLog  strings.Builder
	// shown counts the events printed so far: a question is printed only
	// once every event that came before it has been (the server sends
	// them first; the printer runs on its own goroutine).
	shown atomic.Int64
}

func (d *demoRun) say(format string, a ...any) { fmt.Fprintf(d.out, format, a...) }

// Run runs the demo, printing what an editor user sees to out; pace is
// the pause between streamed pieces of the scripted answer. It starts
// this executable as `agent-ls serve`.
func Run(ctx context.Context, out io.Writer, pace time.Duration) error {
	dir, err := os.MkdirTemp("", "agent-ls-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	configHome, err := os.MkdirTemp("", "agent-ls-demo-config-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(configHome)
	if err := copySample(dir); err != nil {
		return fmt.Errorf("copy the sample project: %w", err)
	}
	story := &demoStory{}
	model := fakemodel.New(demoScript(pace, story)...)
	defer model.Close()

	d := &demoRun{out: out, dir: dir, configHome: configHome}
	d.say("agent-ls demo: an editor, the agent-ls server and a scripted model, all on this machine.\n")
	d.say("Sample project copied to %s\n", dir)
	if cache := sandbox.Probe().CacheRoot; cache != "" && !exists(filepath.Join(cache, "go-build")) {
		d.say("The sandboxed `go test` gets its own build cache in %s; filling it the first time takes a while.\n", cache)
	}
	d.say("\n")
	if err := d.startServer(ctx, model.URL()); err != nil {
		return err
	}
	defer d.ed.Disconnect()

	uri, sel, err := d.openSelection(ctx)
	if err != nil {
		return err
	}
	fix, err := d.pickFix(ctx, uri, sel)
	if err != nil {
		return err
	}
	events := d.ed.EventStream()
	var started struct {
		SessionID string `json:"sessionId"`
		TurnID    string `json:"turnId"`
	}
	if err := d.ed.Request(ctx, "workspace/executeCommand", map[string]any{
		"command": fix.Command, "arguments": fix.Arguments,
	}, &started); err != nil {
		return fmt.Errorf("start the turn: %w", err)
	}
	status, err := showTurn(ctx, out, events, started.TurnID, &d.shown)
	if err != nil {
		return err
	}
	if err := d.finish(ctx, status); err != nil {
		return err
	}
	if p := story.Problem(); p != "" {
		return fmt.Errorf("the session did not go as the demo expects: %s (see the output above)", p)
	}
	d.say("▌ Shut the server down (exit status 0); removing %s.\n", dir)
	return nil
}

// startServer starts `agent-ls serve` in the sample project, talking to
// the scripted model at modelURL, and initializes it as an editor does.
// The server builds its agent as for any editor: the demo exercises the
// real server, settings and all.
func (d *demoRun) startServer(ctx context.Context, modelURL string) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the agent-ls binary: %w", err)
	}
	cmd := exec.Command(self, "serve", "--stdio", "--log-level", "warn",
		"--base-url", modelURL, "--model", "gpt-5-codex", "--wire-api", "responses")
	cmd.Dir = d.dir
	// The demo is the same everywhere, and leaves nothing behind: the
	// user's config file and profile stay out of it, and its session
	// record and transcript go to a folder of its own, removed after.
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=demo-key", "AGENT_LS_PROFILE=",
		"XDG_CONFIG_HOME="+filepath.Join(d.configHome, "config"), "XDG_STATE_HOME="+filepath.Join(d.configHome, "state"))
	cmd.Stderr = &d.serverLog
	d.ed, err = editor.Start(cmd, editor.Config{ShowMessageRequest: d.ask})
	if err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	init, err := d.ed.Initialize(ctx, editor.Options{
		Events: true, Progress: true, ApplyEdit: true, DocumentChanges: true,
		MessageActionItems: true, WorkspaceFolders: []string{d.dir}, ClientName: "agent-ls demo editor",
		// "untrusted": the agent asks before any command that is not
		// known to only read.
		InitializationOptions: map[string]any{"approvalPolicy": "untrusted"},
	})
	if err != nil {
		d.ed.Disconnect()
		return fmt.Errorf("initialize: %w", err)
	}
	ver, _ := init.ServerInfo.Version.Get()
	d.say("▌ Editor started %s over stdio and initialized it.\n", init.ServerInfo.Name+" "+ver)
	return nil
}

// ask answers an approval request as the demo user: the editor shows it
// as a message with buttons, and the user clicks "Allow once" ("Allow
// always" for commands: the tests may run again without asking).
func (d *demoRun) ask(ctx context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	for received := int64(len(d.ed.Events())); d.shown.Load() < received && ctx.Err() == nil; {
		time.Sleep(time.Millisecond)
	}
	d.say("\n▌ The editor pops up a question from agent-ls:\n")
	for _, line := range strings.Split(p.Message, "\n") {
		d.say("    │ %s\n", line)
	}
	var titles []string
	for _, a := range p.Actions {
		titles = append(titles, "["+a.Title+"]")
	}
	choice := "Allow once"
	if strings.Contains(p.Message, "wants to run") {
		choice = "Allow always"
	}
	d.say("    │ %s\n▌ The user clicks [%s].\n\n", strings.Join(titles, " "), choice)
	return &protocol.MessageActionItem{Title: choice}, nil
}

// openSelection opens convert.go and selects FahrenheitToCelsius (lines
// 10-14 of the file), as the user does.
func (d *demoRun) openSelection(ctx context.Context) (string, protocol.Range, error) {
	sel := protocol.Range{Start: protocol.Position{Line: 9}, End: protocol.Position{Line: 14}}
	file := filepath.Join(d.dir, "convert.go")
	text, err := os.ReadFile(file)
	if err != nil {
		return "", sel, err
	}
	uri := "file://" + file
	if err := d.ed.Open(ctx, uri, "go", string(text)); err != nil {
		return "", sel, err
	}
	d.say("▌ Opened convert.go and selected lines %d-%d:\n\n", sel.Start.Line+1, sel.End.Line)
	lines := strings.Split(string(text), "\n")
	for i := sel.Start.Line; i < sel.End.Line; i++ {
		d.say("    %2d │ %s\n", i+1, lines[i])
	}
	return uri, sel, nil
}

// pickFix asks for the code actions on the selection, shows them and
// returns the command of "Agent: Fix this".
func (d *demoRun) pickFix(ctx context.Context, uri string, sel protocol.Range) (*protocol.Command, error) {
	var actions []json.RawMessage
	err := d.ed.Request(ctx, "textDocument/codeAction", map[string]any{
		"textDocument": map[string]string{"uri": uri},
		"range":        sel,
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions)
	if err != nil {
		return nil, fmt.Errorf("code actions: %w", err)
	}
	var fix *protocol.Command
	d.say("\n▌ Code actions offered for the selection:\n")
	for _, raw := range actions {
		var a struct {
			Title   string            `json:"title"`
			Command *protocol.Command `json:"command"`
		}
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("decode code action: %w", err)
		}
		d.say("    • %s\n", a.Title)
		if a.Title == "Agent: Fix this" {
			fix = a.Command
		}
	}
	if fix == nil {
		return nil, errors.New("the server offered no \"Agent: Fix this\" action")
	}
	d.say("\n▌ The user picks \"Agent: Fix this\"; the editor runs its command.\n\n")
	return fix, nil
}

// finish waits for the progress to end, shuts the server down and checks
// it exited cleanly after a completed turn.
func (d *demoRun) finish(ctx context.Context, status string) error {
	if end, err := d.ed.WaitProgress(ctx, func(p editor.Progress) bool { return p.Kind == "end" }); err == nil {
		d.say("▌ The progress in the editor's status bar ended with %q.\n", end.Message)
	}
	if err := d.ed.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	code, err := d.ed.Exit(ctx)
	if err != nil {
		return fmt.Errorf("exit: %w", err)
	}
	if code != 0 {
		return fmt.Errorf("the server exited with status %d; its log:\n%s", code, d.serverLog.String())
	}
	if status != "completed" {
		return fmt.Errorf("the turn ended %s; server log:\n%s", status, d.serverLog.String())
	}
	return nil
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

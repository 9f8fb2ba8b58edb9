//go:build unix

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// Neovim's stock prompts: inputlist() (code actions, approvals) and the
// question before writing a file that changed on disk.
var (
	nvimList      = regexp.MustCompile(`Type number and <Enter> or click with the mouse \(q or empty cancels\): ?`)
	nvimChanged   = regexp.MustCompile(`WARNING: The file has been changed since reading it!!!\s*Do you really want to write to it \(y/n\)\?`)
	nvimErrorLine = regexp.MustCompile(`(?m)^(E\d+: |Error executing)[^\n]*`)
)

// choose answers an inputlist prompt with the number of title.
func choose(title string) func(string) (string, error) {
	return func(shown string) (string, error) {
		n, err := pick(shown, title)
		return n + "<CR>", err
	}
}

// startNeovim runs Debian's Neovim headless with the README's snippet as
// its init.lua and the driver.
func startNeovim(t *testing.T, flow string, m *fakemodel.Server) (*editorRun, func(string) error, string) {
	t.Helper()
	nvim := requireProgram(t, "nvim")
	var edit func(string) string
	if flow == "buffer" {
		edit = func(s string) string {
			return strings.Replace(s, `model = "gpt-5-codex" }`, `model = "gpt-5-codex", saveAgentEdits = false }`, 1)
		}
	}
	f := prepare(t, "### Neovim 0.7–0.9", "lua", "init.lua", "driver.lua", edit)
	sock := filepath.Join(f.home, "nvim.sock")
	cmd := exec.Command(nvim, "-n", "--headless", "--clean", "--listen", sock, "-u", f.init, "-c", "luafile "+f.driver)
	cmd.Dir = f.ws
	cmd.Env = f.env(m, flow)
	r := startEditor(t, cmd)
	send := func(keys string) error {
		out, err := exec.Command(nvim, "--server", sock, "--remote-send", keys).CombinedOutput()
		if err != nil {
			return &exec.ExitError{Stderr: out}
		}
		return nil
	}
	return r, send, f.ws
}

// TestNeovimFullFlow: bare Neovim 0.7 with the README's setup attaches,
// runs "Fix this" on a selection (the turn streams, patches the buffer,
// runs a command after the user allows it, which sees the patched file,
// and the answer shows in the message area), continues the conversation
// with "Explain this" at the cursor, stops a running turn with "Agent:
// Stop", and saves the buffer: the default saveAgentEdits wrote the file
// already, so Neovim asks first, and the saved file is the buffer.
func TestNeovimFullFlow(t *testing.T) {
	g := newGates(t)
	g.start1.Release()
	g.start2.Release()
	m := fakemodel.New(fullFlow(g)...)
	t.Cleanup(m.Close)
	r, send, ws := startNeovim(t, "full", m)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	approval := func(shown string) (string, error) {
		if !strings.Contains(shown, "agent-ls wants to run: grep -c 'Grüß dich' greet.js") {
			return "", errorf("the approval does not say what runs")
		}
		return choose("Allow once")(shown)
	}
	r.play(ctx, send, []prompt{
		{"code actions on the selection", nvimList, choose("Agent: Fix this")},
		{"approval of the command", nvimList, approval},
		{"code actions at the cursor", nvimList, choose("Agent: Explain this")},
		{"code actions", nvimList, choose("Agent: Refactor this")},
		{"code actions while the turn runs", nvimList, whenReached(g.hold, choose("Agent: Stop"))},
		{"code actions after the turn", nvimList, choose("Agent: Show conversation")},
		{"the file changed on disk", nvimChanged, func(string) (string, error) { return "y", nil }},
	}, nvimErrorLine)
	checkFullFlow(t, m)
	// Neovim 0.7 sent only the cursor, on the function's first line: the
	// server took the function.
	if explain := string(m.Requests()[3].Body); !strings.Contains(explain, "greet.js, lines 2-4:") {
		t.Errorf("the second turn's context is not the function at the cursor:\n%s", explain)
	}
	// The terminal ends lines with "\r\n".
	out := strings.ReplaceAll(r.out.String(), "\r", "")
	checkShown(t, out,
		"LSP[agent-ls][Info] Agent: Done (2 tool calls, 1 file changed)\n"+firstAnswer+"\nConversation: ",
		"LSP[agent-ls][Info] Agent: Done\n"+secondAnswer,
		"LSP[agent-ls][Info] Agent: Interrupted",
		"Agent: Fix this code.", // the README's progress lines
		"Agent: Writing the answer",
	)
	checkSaved(t, ws)
}

// TestNeovimWithoutSavingAgentEdits: with saveAgentEdits off the agent's
// edit stays in the buffer, the file keeps its saved text, and saving
// asks nothing.
func TestNeovimWithoutSavingAgentEdits(t *testing.T) {
	g := newGates(t)
	g.start1.Release()
	m := fakemodel.New(bufferFlow(g)...)
	t.Cleanup(m.Close)
	r, send, ws := startNeovim(t, "buffer", m)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r.play(ctx, send, []prompt{
		{"code actions on the selection", nvimList, choose("Agent: Fix this")},
	}, nvimChanged, nvimErrorLine)
	checkSaved(t, ws)
}

// TestNeovimRewindCodeAction: bare Neovim's built-in client, without the
// plugin, takes a turn's patch back with the code action "Agent: Rewind
// last turn", in the buffer and on disk.
func TestNeovimRewindCodeAction(t *testing.T) {
	g := newGates(t)
	g.start1.Release()
	m := fakemodel.New(bufferFlow(g)...)
	t.Cleanup(m.Close)
	r, send, ws := startNeovim(t, "rewind", m)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r.play(ctx, send, []prompt{
		{"code actions on the selection", nvimList, choose("Agent: Fix this")},
		{"code actions after the turn", nvimList, choose("Agent: Rewind last turn")},
	}, nvimChanged, nvimErrorLine)
	if b, err := os.ReadFile(filepath.Join(ws, greetFile)); err != nil || string(b) != greetBefore {
		t.Errorf("greet.js after the rewind (%v):\n%s", err, b)
	}
}

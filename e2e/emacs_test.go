//go:build unix

package e2e

import (
	"context"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// Emacs's and eglot's prompts in batch mode, where the minibuffer reads
// stdin.
var (
	emacsActions = regexp.MustCompile(`\[eglot\] Pick an action \(default [^)\n]*\): `)
	emacsChoose  = regexp.MustCompile(`Choose an option: `)
	emacsChanged = regexp.MustCompile(`has changed since visited or saved\.  Save anyway\? \(yes or no\) `)
	emacsError   = regexp.MustCompile(`(?m)^(Debugger entered|Error: |\[eglot\] \(warning\))[^\n]*`)
)

// emacsAccepted: the driver has eglot's answer to a code action's command.
var emacsAccepted = regexp.MustCompile(`DRIVER: command answered`)

// release lets a held model answer go on.
func release(g *fakemodel.Gate) func(string) (string, error) {
	return func(string) (string, error) {
		g.Release()
		return "", nil
	}
}

// answer types a line.
func answer(line string) func(string) (string, error) {
	return func(string) (string, error) { return line + "\n", nil }
}

// startEmacs runs Emacs in batch mode with the README's snippet as its
// init file and the driver.
func startEmacs(t *testing.T, flow string, m *fakemodel.Server) (*editorRun, func(string) error, string) {
	t.Helper()
	emacs := requireProgram(t, "emacs")
	var edit func(string) string
	if flow == "buffer" {
		edit = func(s string) string {
			return strings.Replace(s, `:model "gpt-5-codex")`, `:model "gpt-5-codex" :saveAgentEdits :json-false)`, 1)
		}
	}
	f := prepare(t, "### Emacs with eglot", "elisp", "init.el", "driver.el", edit)
	cmd := exec.Command(emacs, "--batch", "-l", f.init, "-l", f.driver)
	cmd.Dir = f.ws
	cmd.Env = f.env(m, flow)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := startEditor(t, cmd)
	send := func(keys string) error {
		_, err := io.WriteString(stdin, keys)
		return err
	}
	return r, send, f.ws
}

// TestEmacsFullFlow: Emacs 28 with Debian's eglot 1.9 and the README's
// setup runs the same flow as TestNeovimFullFlow: "Fix this" on a region
// (streamed, patched, a command allowed in the minibuffer that sees the
// patched file, the answer in the echo area), "Explain this" at point in
// the same conversation, "Agent: Stop" on a running turn, and a save,
// which Emacs questions because the default saveAgentEdits wrote the
// file already.
func TestEmacsFullFlow(t *testing.T) {
	// Emacs 28's jsonrpc leaves messages that arrive in the same read as
	// the answer to a synchronous request unread until more output comes;
	// a real model takes long enough to answer, the fake one is held
	// until eglot has the answer to the code action's command.
	g := newGates(t)
	m := fakemodel.New(fullFlow(g)...)
	t.Cleanup(m.Close)

	r, send, ws := startEmacs(t, "full", m)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	approval := func(shown string) (string, error) {
		if !strings.Contains(shown, "agent-ls wants to run: grep -c 'Grüß dich' greet.js") {
			return "", errorf("the approval does not say what runs")
		}
		return "Allow once\n", nil
	}
	r.play(ctx, send, []prompt{
		{"code actions on the region", emacsActions, answer("Agent: Fix this")},
		{"the first turn accepted", emacsAccepted, release(g.start1)},
		{"approval of the command", emacsChoose, approval},
		{"code actions at point", emacsActions, answer("Agent: Explain this")},
		{"the second turn accepted", emacsAccepted, release(g.start2)},
		{"code actions", emacsActions, answer("Agent: Refactor this")},
		{"code actions while the turn runs", emacsActions, whenReached(g.hold, answer("Agent: Stop"))},
		{"code actions after the turn", emacsActions, answer("Agent: Show conversation")},
		{"the file changed on disk", emacsChanged, answer("yes")},
	}, emacsError)
	checkFullFlow(t, m)
	checkShown(t, r.out.String(),
		"[eglot] Server reports (type=3): Agent: Done (2 tool calls, 1 file changed)\n"+firstAnswer+"\nConversation: ",
		"[eglot] Server reports (type=3): Agent: Done\n"+secondAnswer,
		"[eglot] Server reports (type=3): Agent: Interrupted",
		"[eglot] Server reports (type=3): Agent: working on",
	)
	checkSaved(t, ws)
}

// TestEmacsWithoutSavingAgentEdits: with saveAgentEdits off the edit
// stays in the buffer and Emacs saves without a question.
func TestEmacsWithoutSavingAgentEdits(t *testing.T) {
	g := newGates(t) // see TestEmacsFullFlow
	m := fakemodel.New(bufferFlow(g)...)
	t.Cleanup(m.Close)
	r, send, ws := startEmacs(t, "buffer", m)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r.play(ctx, send, []prompt{
		{"code actions on the region", emacsActions, answer("Agent: Fix this")},
		{"the turn accepted", emacsAccepted, release(g.start1)},
	}, emacsChanged, emacsError)
	checkSaved(t, ws)
}

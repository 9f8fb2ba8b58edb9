package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/elicit"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// termFrontend shows a turn on the terminal: the answer on stdout as it
// streams, everything else on stderr; or, with --json, every event as one
// JSON line on stdout.
//
// Everything it shows that comes from the model, the repository or a
// server has its control characters, escape sequences and bidi controls
// written as visible escapes (textcut.Visible): raw, they could repaint
// an approval question, clear the screen or write the clipboard. Commands
// to approve are quoted word by word (agent.QuoteCommand). The answer on
// stdout is escaped only when stdout is a terminal: piped, it is data
// (a script the model wrote, say) and goes out as the model wrote it;
// --json escapes by itself.
type termFrontend struct {
	out, errw *bufio.Writer
	jsonOut   bool
	// outTerminal: stdout is a terminal, so the answer is escaped too.
	outTerminal bool
	// midLine: stdout has text not yet ended by a newline.
	midLine bool
	// streamed: the text of each item that reached stdout through deltas.
	streamed map[string]string
	// answer decides approval requests; nil rejects them all (no
	// terminal to ask on and no --yes).
	answer func(context.Context, *agent.ApprovalRequest) (string, error)
	// ask puts an MCP server's question to the user (term_elicit.go);
	// nil declines it, saying why: noAsk.
	ask   func(context.Context, *agent.ElicitRequest) (elicit.Result, error)
	noAsk string
	// askUser puts the model's questions to the user (term_ask.go); nil
	// refuses them, saying why: noAsk.
	askUser func(context.Context, *agent.AskRequest) ([]agent.Answer, error)
	// showDiff: the turn's diff follows its list of changed files, on
	// stdout (exec --diff).
	showDiff bool
	// usage is the turn's last usage event (usageLine).
	usage *event.Usage
	// stderr is errw's writer, for what goroutines other than the
	// turn's write at once (a server's question comes on its own).
	stderr io.Writer
}

// RequestApproval asks on the terminal, answers for --yes, or rejects.
func (f *termFrontend) RequestApproval(ctx context.Context, req *agent.ApprovalRequest) (string, error) {
	if f.answer == nil {
		f.errw.WriteString("agent-ls: rejected an action that needs approval (stdin is not a terminal; use --yes to allow)\n")
		f.errw.Flush()
		return agent.RejectOnce, nil
	}
	return f.answer(ctx, req)
}

// isTerminal reports whether f (stdin, stdout) is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && isTerminalFile(file)
}

// readLines reads stdin's lines on its own goroutine, so that an
// interrupt ends the wait for one at once; the approvals and the MCP
// servers' questions asked on the terminal share them.
func readLines(stdin io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}

// terminalPrompt asks the user on the terminal, reading the answers
// from lines.
func terminalPrompt(lines <-chan string, stderr io.Writer) func(context.Context, *agent.ApprovalRequest) (string, error) {
	return func(ctx context.Context, req *agent.ApprovalRequest) (string, error) {
		fmt.Fprint(stderr, approvalQuestion(req))
		if req.Kind == agent.ApprovalNetwork {
			return networkPrompt(ctx, lines, stderr, req)
		}
		return readChoice(ctx, lines, stderr, "  [y] allow once  [a] allow always  [n] reject  [x] abort turn: ", map[string]string{
			"y": agent.AllowOnce, "yes": agent.AllowOnce,
			"a": agent.AllowAlways, "always": agent.AllowAlways,
			"n": agent.RejectOnce, "no": agent.RejectOnce, "": agent.RejectOnce,
			"x": agent.Abort, "abort": agent.Abort,
		})
	}
}

// readChoice shows prompt and reads lines until one (trimmed, any case)
// is a key of answers, and returns its answer. No more lines (end of
// input) rejects.
func readChoice(ctx context.Context, lines <-chan string, stderr io.Writer, prompt string, answers map[string]string) (string, error) {
	for {
		fmt.Fprint(stderr, prompt)
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case line, ok := <-lines:
			if !ok {
				return agent.RejectOnce, nil
			}
			if answer, ok := answers[strings.ToLower(strings.TrimSpace(line))]; ok {
				return answer, nil
			}
		}
	}
}

// approvalQuestion is what the terminal shows of an approval request:
// the whole command, one shell word per argument, or the files and the
// diff, or the tool; and why. Every piece of it that the model or the
// repository chose is quoted or escaped, so what the user approves is
// what runs.
func approvalQuestion(req *agent.ApprovalRequest) string {
	var b strings.Builder
	switch req.Kind {
	case agent.ApprovalNetwork:
		fmt.Fprintf(&b, "\n? network: %s\n", textcut.VisibleLine(net.JoinHostPort(req.Host, strconv.Itoa(req.Port))))
	case agent.ApprovalExec:
		fmt.Fprintf(&b, "\n? run %s\n  in %s\n", agent.QuoteCommand(req.Command), textcut.VisibleLine(req.Cwd))
	case agent.ApprovalPatch:
		files := make([]string, len(req.Files))
		for i, f := range req.Files {
			files[i] = textcut.VisibleLine(f)
		}
		fmt.Fprintf(&b, "\n? change %s\n%s", strings.Join(files, ", "), textcut.Visible(req.Diff))
	default:
		tool := textcut.VisibleLine(req.Tool)
		if req.Server != "" {
			tool += " (" + textcut.VisibleLine(req.Server) + ")"
		}
		fmt.Fprintf(&b, "\n? call %s\n", tool)
		if len(req.Arguments) > 0 {
			fmt.Fprintf(&b, "  with %s\n", textcut.VisibleLine(textcut.Cut(string(req.Arguments), 300)))
		}
	}
	if req.Reason != "" {
		fmt.Fprintf(&b, "  %s\n", textcut.Visible(req.Reason))
	}
	// What [a] covers: agent-ls's own words, escaped all the same.
	if req.Always != "" {
		fmt.Fprintf(&b, "  always = %s\n", textcut.Visible(req.Always))
	}
	return b.String()
}

func newTermFrontend(stdout, stderr io.Writer, jsonOut bool) *termFrontend {
	return &termFrontend{
		out:         bufio.NewWriter(stdout),
		errw:        bufio.NewWriter(stderr),
		stderr:      stderr,
		jsonOut:     jsonOut,
		outTerminal: isTerminal(stdout),
		streamed:    make(map[string]string),
	}
}

// answerText is the model's text as stdout shows it: escaped on a terminal,
// as it is in a pipe or a file.
func (f *termFrontend) answerText(s string) string {
	if f.outTerminal {
		return textcut.Visible(s)
	}
	return s
}

// Event is called by the agent with events of one session in order.
func (f *termFrontend) Event(ev event.Event) {
	defer f.out.Flush()
	defer f.errw.Flush()
	if f.jsonOut {
		b, err := json.Marshal(ev)
		if err == nil {
			f.out.Write(b)
			f.out.WriteByte('\n')
		}
	} else {
		f.show(ev.Payload)
	}
}

// ApplyChanges leaves file changes to the agent, which writes them to
// disk: there is no editor to hand them to.
func (f *termFrontend) ApplyChanges(context.Context, *workspace.ChangeSet) (bool, error) {
	return false, nil
}

func (f *termFrontend) show(p event.Payload) {
	switch e := p.(type) {
	case event.MessageDelta:
		f.streamed[e.ItemID] += e.Delta
		f.out.WriteString(f.answerText(e.Delta))
		f.midLine = !strings.HasSuffix(e.Delta, "\n")
	case event.Message:
		// The message is the whole text: print what the deltas did not
		// (all of it when the server sent none; after a retry that took
		// another turn, the text again in full).
		shown := f.streamed[e.ItemID]
		rest := strings.TrimPrefix(e.Text, shown)
		if shown != "" && !strings.HasPrefix(e.Text, shown) {
			f.endLine()
			f.out.WriteString("[the answer changed after a retry; in full:]\n")
			rest = e.Text
		}
		if rest != "" {
			f.out.WriteString(f.answerText(rest))
			f.midLine = !strings.HasSuffix(rest, "\n")
		}
		f.endLine()
	case event.Usage:
		f.responseEnded(e)
	case event.Reasoning:
		fmt.Fprintf(f.errw, "thinking: %s\n", textcut.VisibleLine(textcut.Summary(e.Text, 200)))
	case event.ToolCall:
		f.endLine()
		fmt.Fprintf(f.errw, "▸ %s\n", textcut.VisibleLine(e.Title))
	case event.ToolResult:
		f.toolResult(e)
	case event.ExecOutput:
		// A command's output is the repository's: a test that prints an
		// escape sequence must not take over the terminal either.
		f.errw.WriteString(textcut.Visible(e.Chunk))
	case event.ToolProgress:
		fmt.Fprintf(f.errw, "  … %s\n", textcut.VisibleLine(e.Text()))
	case event.TerminalOutput:
		// A command session's output, live like a command's.
		f.errw.WriteString(textcut.Visible(e.Data))
	case event.TerminalExited:
		fmt.Fprintf(f.errw, "▸ command session %s exited with code %d\n", textcut.VisibleLine(e.TerminalID), e.ExitCode)
	case event.Plan:
		if e.Explanation != "" {
			fmt.Fprintf(f.errw, "plan: %s\n", textcut.VisibleLine(e.Explanation))
		} else {
			fmt.Fprintln(f.errw, "plan:")
		}
		for _, st := range e.Steps {
			mark := "[ ]"
			switch st.Status {
			case event.StepInProgress:
				mark = "[>]"
			case event.StepCompleted:
				mark = "[x]"
			}
			fmt.Fprintf(f.errw, "  %s %s\n", mark, textcut.VisibleLine(st.Step))
		}
	case event.Retry:
		fmt.Fprintf(f.errw, "retrying in %d ms (attempt %d): %s\n", e.DelayMs, e.Attempt, textcut.VisibleLine(e.Message))
	case event.WebSearch:
		f.endLine()
		f.webSearch(e)
	case event.Compacted:
		f.endLine()
		fmt.Fprintf(f.errw, "compacted: older history was summarised to fit the context (about %d tokens, now about %d)\n", e.TokensBefore, e.TokensAfter)
	case event.TurnCompleted:
		f.endLine()
		f.turnChanges(e.Diff)
		switch e.Status {
		case event.StatusFailed:
			fmt.Fprintf(f.errw, "agent-ls: turn failed: %s\n", textcut.Visible(e.Error))
		case event.StatusInterrupted:
			fmt.Fprintln(f.errw, "agent-ls: turn interrupted; what was done so far is kept")
		}

	}
}

// responseEnded notes the usage of a response that ended. What was
// shown is keyed by response and item: some servers number items per
// response, so the next response may reuse these ids for new text.
// Retries happen within a response, before this.
func (f *termFrontend) responseEnded(u event.Usage) {
	clear(f.streamed)
	f.usage = &u
}

// usageLine writes exec's last line: the session's tokens, context and
// rate limits left, as the turn's last usage event gave them.
func (f *termFrontend) usageLine() {
	if f.usage == nil || f.jsonOut {
		return
	}
	if line := f.usage.Line(); line != "" {
		fmt.Fprintf(f.stderr, "agent-ls: %s\n", line)
	}
}

// toolResult shows how a call ended.
func (f *termFrontend) toolResult(e event.ToolResult) {
	name := e.Tool
	if e.Server != "" {
		name += " (" + e.Server + ")"
	}
	name = textcut.VisibleLine(name)
	if e.Status == event.ToolCompleted {
		fmt.Fprintf(f.errw, "  ✓ %s (%d ms)\n", name, e.DurationMs)
	} else {
		fmt.Fprintf(f.errw, "  ✗ %s %s: %s\n", name, e.Status, textcut.VisibleLine(textcut.Summary(e.Output, 200)))
	}
}

func (f *termFrontend) endLine() {
	if f.midLine {
		f.out.WriteByte('\n')
		f.midLine = false
	}
}

// networkPrompt reads the answer to a network question: once, for the
// session, for good (the first offered pattern, written to the user's
// config), or deny.
func networkPrompt(ctx context.Context, lines <-chan string, stderr io.Writer, req *agent.ApprovalRequest) (string, error) {
	prompt := "  [y] allow once  [a] allow for this session"
	answers := map[string]string{
		"y": agent.AllowOnce, "yes": agent.AllowOnce,
		"a": agent.AllowAlways, "always": agent.AllowAlways,
		"n": agent.RejectOnce, "no": agent.RejectOnce, "": agent.RejectOnce, "x": agent.RejectOnce, "abort": agent.RejectOnce,
	}
	if len(req.Patterns) > 0 && slices.Contains(req.Options, agent.AllowPersist) {
		prompt += fmt.Sprintf("  [p] always allow %s (user config)", textcut.VisibleLine(req.Patterns[0]))
		answers["p"], answers["persist"] = agent.AllowPersist, agent.AllowPersist
	}
	return readChoice(ctx, lines, stderr, prompt+"  [n] deny: ", answers)
}

// webSearch shows a search as it begins and as it ends.
func (f *termFrontend) webSearch(e event.WebSearch) {
	if e.Query == "" && e.Status == event.WebSearchSearching {
		fmt.Fprintln(f.errw, "▸ Searching the web…")
		return
	}
	fmt.Fprintf(f.errw, "▸ Web search: %s (%s)\n", textcut.VisibleLine(e.Query), e.Status)
}

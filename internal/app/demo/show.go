package demo

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// showTurn prints the turn's events as an editor user would see them and
// returns the turn's final status.
func showTurn(ctx context.Context, out io.Writer, events *editor.EventStream, turnID string, shown *atomic.Int64) (string, error) {
	p := &turnPrinter{out: out}
	for {
		ev, err := events.Next(ctx)
		if err != nil {
			return "", fmt.Errorf("waiting for the turn's events: %w", err)
		}
		shown.Add(1)
		if ev.TurnID != turnID {
			continue
		}
		if ev.Type == "turnCompleted" {
			p.endLine()
			fmt.Fprintf(out, "── turn %s", ev.Status)
			if ev.Error != "" {
				fmt.Fprintf(out, ": %s", textcut.Visible(ev.Error))
			}
			fmt.Fprint(out, "\n\n")
			return ev.Status, nil
		}
		p.show(&ev)
	}
}

// turnPrinter prints a turn's events; midLine is true while the answer
// streams and its line is not ended.
type turnPrinter struct {
	out     io.Writer
	midLine bool
}

func (p *turnPrinter) endLine() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}

func (p *turnPrinter) show(ev *editor.Event) {
	out := p.out
	switch ev.Type {
	case "turnStarted":
		fmt.Fprintf(out, "── turn started: %s\n", textcut.VisibleLine(textcut.Summary(ev.Prompt, 0)))
	case "reasoning":
		p.endLine()
		fmt.Fprintf(out, "   (thinking) %s\n", textcut.Visible(ev.Text))
	case "plan":
		p.endLine()
		p.plan(ev.Steps)
	case "toolCall":
		p.endLine()
		fmt.Fprintf(out, "── tool: %s\n", textcut.VisibleLine(ev.Title))
	case "execOutput":
		p.indented("   │ ", ev.Chunk)
	case "approval":
		fmt.Fprintf(out, "   (approval %s: %s)\n", ev.Kind, ev.Decision)
	case "toolResult":
		fmt.Fprintf(out, "   → %s: %s\n", ev.Status, textcut.VisibleLine(textcut.Summary(ev.Output, 0)))
	case "messageDelta":
		if !p.midLine {
			fmt.Fprint(out, "── answer\n")
		}
		fmt.Fprint(out, textcut.Visible(ev.Delta))
		p.midLine = true
	case "message":
		p.endLine()
	case "fileChange":
		p.endLine()
		fmt.Fprintf(out, "── file change (%s)\n", ev.Status)
		p.indented("   ", strings.TrimRight(ev.Diff, "\n")+"\n")
	case "usage":
		fmt.Fprintf(out, "   (tokens: %d in, %d out)\n", ev.InputTokens, ev.OutputTokens)
	case "retry":
		p.endLine()
		fmt.Fprintf(out, "   (retrying: %s)\n", textcut.VisibleLine(ev.Message))
	}
}

func (p *turnPrinter) plan(steps []editor.PlanStep) {
	fmt.Fprintln(p.out, "── plan")
	for _, s := range steps {
		mark := "☐"
		switch s.Status {
		case "in_progress":
			mark = "▶"
		case "completed":
			mark = "☑"
		}
		fmt.Fprintf(p.out, "   %s %s\n", mark, textcut.VisibleLine(s.Step))
	}
}

// indented prints text (a command's output, a diff: the repository's)
// with prefix before each line, and ends its last line; its control and
// bidi characters are escaped.
func (p *turnPrinter) indented(prefix, text string) {
	for _, line := range strings.SplitAfter(textcut.Visible(text), "\n") {
		if line != "" {
			fmt.Fprintf(p.out, "%s%s", prefix, line)
		}
	}
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(p.out)
	}
}

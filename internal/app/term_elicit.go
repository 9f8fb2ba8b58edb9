package app

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/elicit"
)

// Elicit puts an MCP server's question to the user on the terminal
// (agent.Elicitor), or declines it, saying so on stderr and to the model,
// when nobody can answer (--yes, stdin not a terminal).
func (f *termFrontend) Elicit(ctx context.Context, req *agent.ElicitRequest) (elicit.Result, error) {
	if f.ask != nil {
		return f.ask(ctx, req)
	}
	why := f.noAsk
	if why == "" {
		why = "nobody can be asked here"
	}
	fmt.Fprintf(f.stderr, "agent-ls: declined a question of the MCP server %s (%s)\n", elicit.ShownLine(req.Server, elicit.MaxLabel), why)
	return elicit.Result{Action: elicit.Decline, Note: "the MCP server's question was declined: " + why}, nil
}

// terminalForm asks a server's question on the terminal, reading the
// answers from lines: the server and its message, then whether to answer
// at all, then each field in turn with its type, bounds, choices and
// default; an answer the field refuses is asked again. Everything the
// server wrote is shown with visible escapes and cut. End of input
// cancels; questions are asked one at a time.
func terminalForm(lines <-chan string, stderr io.Writer) func(context.Context, *agent.ElicitRequest) (elicit.Result, error) {
	var mu sync.Mutex
	return func(ctx context.Context, req *agent.ElicitRequest) (elicit.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		read := func(prompt string) (string, bool, error) {
			fmt.Fprint(stderr, prompt)
			select {
			case <-ctx.Done():
				return "", false, ctx.Err()
			case line, ok := <-lines:
				return line, ok, nil
			}
		}
		fmt.Fprintf(stderr, "\n? the MCP server %s asks:\n  %s\n", elicit.ShownLine(req.Server, elicit.MaxLabel),
			strings.ReplaceAll(elicit.Shown(req.Message, elicit.MaxMessage), "\n", "\n  "))
		for {
			line, ok, err := read("  [y] answer  [n] decline  [c] cancel: ")
			if err != nil || !ok {
				return elicit.Result{Action: elicit.Cancel}, err
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return askFields(req.Schema, read, stderr)
			case "n", "no", "":
				return elicit.Result{Action: elicit.Decline}, nil
			case "c", "cancel":
				return elicit.Result{Action: elicit.Cancel}, nil
			}
		}
	}
}

// askFields asks each field of s until its answer fits.
func askFields(s *elicit.Schema, read func(string) (string, bool, error), w io.Writer) (elicit.Result, error) {
	content := map[string]any{}
	for i := range s.Fields {
		f := &s.Fields[i]
		fmt.Fprintf(w, "  %s (%s)\n", f.Label(), f.Hint())
		if f.Description != "" {
			fmt.Fprintf(w, "    %s\n", elicit.ShownLine(f.Description, elicit.MaxMessage))
		}
		for n, c := range f.Choices {
			fmt.Fprintf(w, "    %d) %s\n", n+1, c.Label())
		}
		for {
			line, ok, err := read("  > ")
			if err != nil || !ok {
				return elicit.Result{Action: elicit.Cancel}, err
			}
			v, err := f.Value(line)
			if err != nil {
				fmt.Fprintf(w, "  ! %s\n", err)
				continue
			}
			if v != nil {
				content[f.Name] = v
			}
			break
		}
	}
	checked, err := s.Check(content)
	if err != nil {
		// Each value was checked as it came: nothing else can fail.
		return elicit.Result{}, fmt.Errorf("the answers do not fit the form: %w", err)
	}
	return elicit.Result{Action: elicit.Accept, Content: checked}, nil
}

var _ agent.Elicitor = (*termFrontend)(nil)

package app

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// CanAsk: the model's questions are asked on the terminal, when there is
// one and no --yes (agent.Asker); otherwise request_user_input is not
// offered.
func (f *termFrontend) CanAsk(string) bool { return f.askUser != nil }

// AskUser puts the model's questions to the user on the terminal, or
// refuses when nobody can answer.
func (f *termFrontend) AskUser(ctx context.Context, req *agent.AskRequest) ([]agent.Answer, error) {
	if len(req.Questions) == 1 && req.Questions[0].ID == agent.LimitQuestionID {
		// exec warns and goes on: a one-shot run has nothing to compact
		// for later, and a script waits for nobody.
		why, _, _ := strings.Cut(req.Questions[0].Question, agent.LimitQuestionTail)
		fmt.Fprintf(f.stderr, "agent-ls: warning: %s The turn goes on.\n", textcut.VisibleLine(why))
		return []agent.Answer{{ID: agent.LimitQuestionID, Label: agent.LimitGoOn}}, nil
	}
	if f.askUser == nil {
		why := f.noAsk
		if why == "" {
			why = "nobody can be asked here"
		}
		return nil, fmt.Errorf("nobody answers questions in this run (%s)", why)
	}
	return f.askUser(ctx, req)
}

// terminalQuestions asks the model's questions on the terminal, one
// after the other, reading the answers from lines: each question with
// its numbered options and a last number for "Other", which asks for the
// user's own words (text that is not a number is taken as such words
// at once); an empty line leaves the question unanswered. Everything the
// model wrote is shown with visible escapes. End of input leaves the rest
// unanswered; an interrupt withdraws the questions.
func terminalQuestions(lines <-chan string, stderr io.Writer) func(context.Context, *agent.AskRequest) ([]agent.Answer, error) {
	var mu sync.Mutex
	return func(ctx context.Context, req *agent.AskRequest) ([]agent.Answer, error) {
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
		var answers []agent.Answer
		for i := range req.Questions {
			q := &req.Questions[i]
			showQuestion(stderr, q, i, len(req.Questions))
			a, ok, err := askOne(q, read, stderr)
			if err != nil {
				return nil, err
			}
			if !ok {
				break // end of input
			}
			if a.Label != "" || a.Text != "" {
				answers = append(answers, a)
			}
		}
		return answers, nil
	}
}

// showQuestion writes question i of n and its numbered options.
func showQuestion(w io.Writer, q *agent.Question, i, n int) {
	fmt.Fprint(w, "\n? agent-ls asks")
	if n > 1 {
		fmt.Fprintf(w, " (%d of %d)", i+1, n)
	}
	if q.Header != "" {
		fmt.Fprintf(w, " · %s", textcut.VisibleLine(q.Header))
	}
	fmt.Fprintf(w, "\n  %s\n", strings.ReplaceAll(textcut.Visible(q.Question), "\n", "\n  "))
	for j, o := range q.Options {
		fmt.Fprintf(w, "    %d) %s", j+1, textcut.VisibleLine(o.Label))
		if o.Description != "" {
			fmt.Fprintf(w, " — %s", textcut.VisibleLine(o.Description))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "    %d) Other (answer in your own words)\n", len(q.Options)+1)
}

// askOne reads the answer to q until it is one: ok is false at the end
// of input.
func askOne(q *agent.Question, read func(string) (string, bool, error), w io.Writer) (a agent.Answer, ok bool, err error) {
	a.ID = q.ID
	other := len(q.Options) + 1
	for {
		line, ok, err := read(fmt.Sprintf("  [1-%d, or Enter to skip] > ", other))
		if err != nil || !ok {
			return a, false, err
		}
		line = strings.TrimSpace(line)
		n, numErr := strconv.Atoi(line)
		switch {
		case line == "":
			return a, true, nil
		case numErr != nil:
			a.Text = line // words rather than a number: the user's own answer
			return a, true, nil
		case n >= 1 && n <= len(q.Options):
			a.Label = q.Options[n-1].Label
			return a, true, nil
		case n == other:
			text, ok, err := read("  your answer > ")
			if err != nil || !ok {
				return a, false, err
			}
			a.Text = strings.TrimSpace(text)
			return a, true, nil
		}
		fmt.Fprintf(w, "  ! answer with a number from 1 to %d\n", other)
	}
}

var _ agent.Asker = (*termFrontend)(nil)

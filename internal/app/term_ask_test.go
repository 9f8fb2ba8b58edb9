package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// TestTerminalQuestions: a number picks an option, words are the user's
// own answer, an empty line skips the question, and the end of input
// leaves the rest unanswered; the model's text is shown escaped.
func TestTerminalQuestions(t *testing.T) {
	q := func(id string) agent.Question {
		return agent.Question{ID: id, Header: "H\x1b[2J", Question: "Which " + id + "?", Options: []agent.QuestionOption{{Label: "a", Description: "first"}, {Label: "b"}}}
	}
	lines := make(chan string, 4)
	for _, l := range []string{"2", "use c instead", ""} {
		lines <- l
	}
	close(lines)
	var out strings.Builder
	ask := terminalQuestions(lines, &out)
	got, err := ask(context.Background(), &agent.AskRequest{Questions: []agent.Question{q("one"), q("two"), q("three"), q("four")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.Answer{{ID: "one", Label: "b"}, {ID: "two", Text: "use c instead"}}
	if !slices.Equal(got, want) {
		t.Errorf("answers %+v, want %+v", got, want)
	}
	for _, want := range []string{"? agent-ls asks (1 of 4) · H\\x1b[2J\n  Which one?\n    1) a — first\n    2) b\n    3) Other (answer in your own words)\n", "(4 of 4)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the terminal shows\n%s\nwithout %q", out.String(), want)
		}
	}
}

// TestTerminalQuestionsRefusedWithoutTerminal: a frontend with nobody to
// ask cannot ask, and a call says why.
func TestTerminalQuestionsRefusedWithoutTerminal(t *testing.T) {
	fe := newTermFrontend(&strings.Builder{}, &strings.Builder{}, false)
	fe.noAsk = "stdin is not a terminal"
	if fe.CanAsk("s") {
		t.Error("CanAsk without a terminal")
	}
	if _, err := fe.AskUser(context.Background(), &agent.AskRequest{}); err == nil || !strings.Contains(err.Error(), "stdin is not a terminal") {
		t.Errorf("AskUser: %v", err)
	}
}

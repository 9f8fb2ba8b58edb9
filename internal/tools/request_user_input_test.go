package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func opts(labels ...string) []QuestionOption {
	var out []QuestionOption
	for _, l := range labels {
		out = append(out, QuestionOption{Label: l, Description: "about " + l})
	}
	return out
}

// TestCheckQuestions: what the schema cannot say is checked, and each
// refusal says what to fix.
func TestCheckQuestions(t *testing.T) {
	q := func(id string, labels ...string) Question {
		return Question{ID: id, Header: "H", Question: "Which?", Options: opts(labels...)}
	}
	for _, tc := range []struct {
		qs   []Question
		want string
	}{
		{[]Question{q("a", "x", "y")}, ""},
		{[]Question{q("a", "x", "y", "z"), q("b", "x", "y"), q("c", "x", "y")}, ""},
		{nil, "0 questions: ask one to three at a time"},
		{[]Question{q("a", "x", "y"), q("b", "x", "y"), q("c", "x", "y"), q("d", "x", "y")}, "4 questions: ask one to three at a time"},
		{[]Question{q("", "x", "y")}, "question 1 has no id"},
		{[]Question{q("a", "x", "y"), q("a", "x", "y")}, `question 2 repeats the id "a"`},
		{[]Question{{ID: "a", Question: " ", Options: opts("x", "y")}}, "question 1 (a) has no question text"},
		{[]Question{q("a", "x")}, "question 1 (a) has 1 options: give two or three"},
		{[]Question{q("a", "w", "x", "y", "z")}, "question 1 (a) has 4 options: give two or three"},
		{[]Question{q("a", "x", "")}, "question 1 (a), option 2 has no label"},
		{[]Question{q("a", "x", "x")}, `question 1 (a) has two options labelled "x"`},
		{[]Question{q("a", "x", "other")}, `question 1 (a) has an option "other": leave it out`},
		{[]Question{q("a", "x", "None of the above")}, `has an option "None of the above": leave it out`},
	} {
		err := CheckQuestions(tc.qs)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.qs, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.qs, err, tc.want)
		}
	}
}

// TestAnswersText: Codex's format, every question's id with its list.
func TestAnswersText(t *testing.T) {
	qs := []Question{
		{ID: "db", Question: "Which?", Options: opts("Postgres", "SQLite")},
		{ID: "port", Question: "Which?", Options: opts("80", "8080")},
		{ID: "tls", Question: "Which?", Options: opts("yes", "no")},
	}
	got, err := AnswersText(qs, []Answer{{ID: "db", Label: "SQLite", Text: "for now"}, {ID: "port", Text: " 8443 "}, {ID: "elsewhere", Label: "x"}})
	want := `{"answers":{"db":{"answers":["SQLite","user_note: for now"]},"port":{"answers":["None of the above","user_note: 8443"]},"tls":{"answers":[]}}}` +
		"\nThe user did not answer: tls"
	if err != nil || got != want {
		t.Errorf("AnswersText = %q, %v; want %q", got, err, want)
	}
	if _, err := AnswersText(qs, []Answer{{ID: "db", Label: "MySQL"}}); err == nil || !strings.Contains(err.Error(), `the answer to "db" chose "MySQL", which is not one of its options`) {
		t.Errorf("an answer that is no option: %v", err)
	}
}

type fakeAsker struct {
	answers []Answer
	err     error
}

func (a fakeAsker) AskUser(ctx context.Context, _ string, _ []Question) ([]Answer, error) {
	if a.answers == nil && a.err == nil {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return a.answers, a.err
}

// TestRequestUserInputHandle: the call asks through the Env's Asker;
// an Asker that fails, none at all, or an interrupt each give the model
// words it can act on.
func TestRequestUserInputHandle(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"questions": []Question{{ID: "db", Header: "DB", Question: "Which?", Options: opts("a", "b")}}})
	call := &Call{CallID: "c1", Name: RequestUserInputName, Arguments: args}
	run := func(ctx context.Context, env *Env) (Output, error) { return RequestUserInput{}.Handle(ctx, env, call) }

	if out, err := run(t.Context(), &Env{Asker: fakeAsker{answers: []Answer{{ID: "db", Label: "b"}}}}); err != nil || out.Text != `{"answers":{"db":{"answers":["b"]}}}` {
		t.Errorf("answered: %+v %v", out, err)
	}
	if _, err := run(t.Context(), &Env{Asker: fakeAsker{err: errors.New("the client went away")}}); err == nil ||
		err.Error() != "request_user_input was cancelled before receiving a response: the client went away" {
		t.Errorf("failed: %v", err)
	}
	if _, err := run(t.Context(), &Env{}); err == nil || !strings.Contains(err.Error(), "nobody can be asked") {
		t.Errorf("no asker: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if out, err := run(ctx, &Env{Asker: fakeAsker{}}); err != nil || out.Text != QuestionsWithdrawn || !out.Failed {
		t.Errorf("interrupted: %+v %v", out, err)
	}
}

package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed request_user_input.md
var requestUserInputDescription string

// RequestUserInputName is the name of the model's question tool.
const RequestUserInputName = "request_user_input"

// Limits of one request_user_input call.
const (
	MaxQuestions   = 3
	MinOptions     = 2
	MaxOptions     = 3
	otherLabel     = "None of the above" // what an "Other" answer reads as, to the model
	userNotePrefix = "user_note: "
)

// RequestUserInput lets the model put one to three multiple-choice
// questions to the user and wait for the answers (Codex's tool of that
// name). The user may answer a question in their own words instead
// ("Other"), or leave it unanswered. Who asks, and how, is the Env's
// Asker; without one the call fails.
type RequestUserInput struct{}

// Question is one of the model's questions: an id for the answer, a short
// header, the question and its options.
type Question struct {
	ID       string           `json:"id"`
	Header   string           `json:"header"`
	Question string           `json:"question"`
	Options  []QuestionOption `json:"options"`
}

// QuestionOption is one choice of a question.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// Answer is the user's answer to one question: Label is the option chosen,
// Text what the user wrote (under "Other", or as a note beside the
// option). Neither means the question was not answered.
type Answer struct {
	ID    string `json:"id"`
	Label string `json:"label,omitempty"`
	Text  string `json:"text,omitempty"`
}

// Asker puts the model's questions to the user (the agent implements it
// through its frontend).
type Asker interface {
	// AskUser asks questions and returns the answers, at most one per
	// question, by id; a question without one was not answered. It
	// returns when the user has answered or ctx ends (the turn is
	// interrupted: the questions are withdrawn). An error says why
	// nobody could be asked; it goes to the model.
	AskUser(ctx context.Context, callID string, questions []Question) ([]Answer, error)
}

var requestUserInputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "questions": {
      "type": "array",
      "description": "Questions to show the user. Prefer 1 and do not exceed 3",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "Stable identifier for mapping answers (snake_case)."},
          "header": {"type": "string", "description": "Short header label shown in the UI (12 or fewer chars)."},
          "question": {"type": "string", "description": "Single-sentence prompt shown to the user."},
          "options": {
            "type": "array",
            "description": "Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with \"(Recommended)\". Do not include an \"Other\" option in this list; the client will add a free-form \"Other\" option automatically.",
            "items": {
              "type": "object",
              "properties": {
                "label": {"type": "string", "description": "User-facing label (1-5 words)."},
                "description": {"type": "string", "description": "One short sentence explaining impact/tradeoff if selected."}
              },
              "required": ["label", "description"],
              "additionalProperties": false
            }
          }
        },
        "required": ["id", "header", "question", "options"],
        "additionalProperties": false
      }
    }
  },
  "required": ["questions"],
  "additionalProperties": false
}`)

func (RequestUserInput) Spec() Spec {
	return Spec{Type: Function, Name: RequestUserInputName, Description: requestUserInputDescription, Parameters: requestUserInputSchema}
}

func (RequestUserInput) Kind() event.ToolKind { return event.KindOther }

// Mutating: a question changes nothing; the Asker asks one call's
// questions at a time.
func (RequestUserInput) Mutating(*Call) bool { return false }

func (RequestUserInput) Title(call *Call) string {
	var a requestUserInputArgs
	_ = json.Unmarshal(call.Arguments, &a)
	if len(a.Questions) == 1 {
		return "Ask: " + a.Questions[0].Question
	}
	return fmt.Sprintf("Ask %d questions", len(a.Questions))
}

// AbortedOutput is the call's output when an interrupt cut it short.
func (RequestUserInput) AbortedOutput() string { return QuestionsWithdrawn }

// QuestionsWithdrawn is request_user_input's output when the turn was
// interrupted while the user was being asked.
const QuestionsWithdrawn = "request_user_input was cancelled before receiving a response: the user interrupted the turn, which withdrew the questions"

type requestUserInputArgs struct {
	Questions []Question `json:"questions"`
}

func (RequestUserInput) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a requestUserInputArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("request_user_input: invalid arguments: %w", err)
	}
	if err := CheckQuestions(a.Questions); err != nil {
		return Output{}, fmt.Errorf("request_user_input: %w", err)
	}
	if env == nil || env.Asker == nil {
		return Output{}, errors.New("request_user_input is unavailable here: nobody can be asked; decide yourself and say what you assumed")
	}
	answers, err := env.Asker.AskUser(ctx, call.CallID, a.Questions)
	switch {
	case ctx.Err() != nil:
		return Output{Text: QuestionsWithdrawn, Failed: true}, nil
	case err != nil:
		return Output{}, fmt.Errorf("request_user_input was cancelled before receiving a response: %w", err)
	}
	text, err := AnswersText(a.Questions, answers)
	if err != nil {
		return Output{}, fmt.Errorf("request_user_input: %w", err)
	}
	return Output{Text: text}, nil
}

// CheckQuestions checks what JSON schema cannot say of a call's
// questions: one to three, each with an id of its own, a question and two
// or three options with distinct labels, none of them "Other" (the
// client adds that itself).
func CheckQuestions(qs []Question) error {
	if n := len(qs); n < 1 || n > MaxQuestions {
		return fmt.Errorf("%d questions: ask one to three at a time", n)
	}
	ids := map[string]bool{}
	for i, q := range qs {
		where := fmt.Sprintf("question %d", i+1)
		switch {
		case strings.TrimSpace(q.ID) == "":
			return fmt.Errorf("%s has no id", where)
		case ids[q.ID]:
			return fmt.Errorf("%s repeats the id %q: each question needs an id of its own", where, q.ID)
		case strings.TrimSpace(q.Question) == "":
			return fmt.Errorf("%s (%s) has no question text", where, q.ID)
		case len(q.Options) < MinOptions || len(q.Options) > MaxOptions:
			return fmt.Errorf("%s (%s) has %d options: give two or three (the client adds a free-form \"Other\" itself)", where, q.ID, len(q.Options))
		}
		ids[q.ID] = true
		labels := map[string]bool{}
		for j, o := range q.Options {
			label := strings.TrimSpace(o.Label)
			switch {
			case label == "":
				return fmt.Errorf("%s (%s), option %d has no label", where, q.ID, j+1)
			case labels[label]:
				return fmt.Errorf("%s (%s) has two options labelled %q: the labels must differ", where, q.ID, label)
			case strings.EqualFold(label, "Other") || strings.EqualFold(label, otherLabel):
				return fmt.Errorf("%s (%s) has an option %q: leave it out, the client adds a free-form \"Other\" itself", where, q.ID, label)
			}
			labels[label] = true
		}
	}
	return nil
}

// CheckAnswer checks a client's answer to q: a label must be one of q's
// options.
func CheckAnswer(q *Question, a Answer) error {
	if a.Label == "" {
		return nil
	}
	for _, o := range q.Options {
		if o.Label == a.Label {
			return nil
		}
	}
	return fmt.Errorf("the answer to %q chose %q, which is not one of its options", q.ID, a.Label)
}

type answerList struct {
	Answers []string `json:"answers"`
}

// AnswersText is what the model reads of the answers, in Codex's format:
// {"answers": {"<id>": {"answers": [...]}}}, where each list holds the
// chosen option's label, or "None of the above" and "user_note: " with
// the user's own words, or both the label and a note; an unanswered
// question has an empty list, and a line after the JSON names those.
func AnswersText(qs []Question, answers []Answer) (string, error) {
	byID := map[string]Answer{}
	for _, a := range answers {
		byID[a.ID] = a
	}
	out := map[string]answerList{}
	var unanswered []string
	for i := range qs {
		q := &qs[i]
		a, ok := byID[q.ID]
		if ok {
			if err := CheckAnswer(q, a); err != nil {
				return "", err
			}
		}
		text := strings.TrimSpace(a.Text)
		list := answerList{Answers: []string{}}
		switch {
		case a.Label != "":
			list.Answers = append(list.Answers, a.Label)
		case text != "":
			list.Answers = append(list.Answers, otherLabel)
		default:
			unanswered = append(unanswered, q.ID)
		}
		if text != "" {
			list.Answers = append(list.Answers, userNotePrefix+text)
		}
		out[q.ID] = list
	}
	b, err := json.Marshal(map[string]any{"answers": out})
	if err != nil {
		return "", err
	}
	if len(unanswered) > 0 {
		return string(b) + "\nThe user did not answer: " + strings.Join(unanswered, ", "), nil
	}
	return string(b), nil
}

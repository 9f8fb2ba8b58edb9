package main

import (
	"bytes"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// Some OpenAI-compatible servers number items per response, so the same
// item id comes back in every response of a turn: each answer is still
// printed once.
func TestExecPrintsEachAnswerOnceWhenIDsRepeat(t *testing.T) {
	reused := func(text ...string) fakemodel.Item {
		it := fakemodel.Message(text...)
		it.ID = "msg_0"
		return it
	}
	plan := fakemodel.FunctionCall("c1", "update_plan", `{"plan":[{"step":"look","status":"completed"}]}`)
	plan.ID = "fc_0"
	plan2 := fakemodel.FunctionCall("c2", "update_plan", `{"plan":[{"step":"look","status":"completed"}]}`)
	plan2.ID = "fc_0"
	m := fakemodel.New(
		fakemodel.Answer(reused("Let me ", "look."), plan),
		fakemodel.Answer(reused("Still ", "looking."), plan2),
		fakemodel.Answer(reused("Done: ", "42.")),
	)
	defer m.Close()
	var stdout, stderr bytes.Buffer
	cmd := execCmd(t, m, "what is the answer?")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if want := "Let me look.\nStill looking.\nDone: 42.\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
}

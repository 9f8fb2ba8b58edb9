package demo

import (
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Results of the shell tool as the model gets them.
const (
	roundTripFails  = "Exit code: 1\nWall time: 0.4 seconds\nOutput:\n--- FAIL: TestRoundTrip (0.00s)\n    convert_test.go:8: round trip of -40 gave -57\nFAIL\nFAIL\texample.com/temperature\t0.009s\nFAIL"
	cacheUnwritable = "Exit code: 1\nWall time: 0.1 seconds\nOutput:\nfailed to initialize build cache at /home/u/.cache/go-build: mkdir /home/u/.cache: permission denied"
	testsPass       = "Exit code: 0\nWall time: 0.5 seconds\nOutput:\nok  \texample.com/temperature\t0.010s"
	stillFails      = "Exit code: 1\nWall time: 0.5 seconds\nOutput:\n--- FAIL: TestBodyTemperature (0.00s)\nFAIL\nFAIL\texample.com/temperature\t0.010s"
)

// TestDemoScriptFollowsResults: what the scripted model says about a test
// run depends on that run's result, and a result outside the story stops
// the session and is reported.
func TestDemoScriptFollowsResults(t *testing.T) {
	cases := []struct {
		step, callID, output string
		claim                string // must be said exactly when the result supports it
		supported            bool
	}{
		{"fix", "call_test1", roundTripFails, "`go test` confirms it: the round trip fails", true},
		{"fix", "call_test1", cacheUnwritable, "`go test` confirms it: the round trip fails", false},
		{"fix", "call_test1", testsPass, "`go test` confirms it: the round trip fails", false},
		{"fix", "call_test1", "", "`go test` confirms it: the round trip fails", false},
		{"summary", "call_test2", testsPass, "`go test` passes", true},
		{"summary", "call_test2", stillFails, "`go test` passes", false},
		{"summary", "call_test2", cacheUnwritable, "`go test` passes", false},
	}
	for _, c := range cases {
		t.Run(c.step+" after "+textcut.FirstLine(c.output[strings.Index(c.output, "Output:")+1:], 0), func(t *testing.T) {
			story := &demoStory{}
			reply := respond(t, demoScript(0, story), c.step, c.callID, c.output)
			text, calls := replyText(reply)
			if got := strings.Contains(text, c.claim); got != c.supported {
				t.Errorf("claim %q said: %v, supported by the result: %v\n%s", c.claim, got, c.supported, text)
			}
			if c.supported {
				if story.Problem() != "" || calls == 0 {
					t.Errorf("the story went on as planned, yet problem %q, %d calls", story.Problem(), calls)
				}
				return
			}
			if story.Problem() == "" || calls != 0 || !strings.Contains(text, "I'll stop here") {
				t.Errorf("an unexpected result must stop the session and be reported: problem %q, %d calls\n%s", story.Problem(), calls, text)
			}
			if c.output != "" && !strings.Contains(text, strings.Split(c.output, "\n")[3]) {
				t.Errorf("the model does not quote what the tool said:\n%s", text)
			}
		})
	}
}

func respond(t *testing.T, steps []fakemodel.Step, name, callID, output string) fakemodel.Reply {
	t.Helper()
	req := &fakemodel.Request{JSON: map[string]any{"input": []any{
		map[string]any{"type": "function_call", "call_id": callID, "name": "shell"},
		map[string]any{"type": "function_call_output", "call_id": callID, "output": output},
	}}}
	for _, s := range steps {
		if s.Name == name {
			if s.Respond == nil {
				t.Fatalf("step %s does not look at the tool results", name)
			}
			return s.Respond(req)
		}
	}
	t.Fatalf("no step %s", name)
	return fakemodel.Reply{}
}

func replyText(r fakemodel.Reply) (text string, calls int) {
	var b strings.Builder
	for _, it := range r.Items {
		switch it.Type {
		case fakemodel.TypeMessage:
			b.WriteString(strings.Join(it.Text, ""))
		default:
			if it.Name != "" {
				calls++
			}
		}
	}
	return b.String(), calls
}

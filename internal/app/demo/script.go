package demo

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// demoStory is what the demo's scripted model expects the tools to do. The
// model reads each tool result before it speaks, so it never claims what
// did not happen: when a result differs from the story it says what it saw
// and stops, and the story records why for the demo to report.
type demoStory struct {
	mu      sync.Mutex
	problem string
}

// deviated records the first way the session left the story.
func (s *demoStory) deviated(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.problem == "" {
		s.problem = why
	}
}

// Problem says how the session left the story, empty if it did not.
func (s *demoStory) Problem() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.problem
}

// The facts the story rests on, as they appear in the shell tool's results.
const (
	demoFirstRunFails   = "--- FAIL: TestRoundTrip"
	demoExitFailed      = "Exit code: 1\n"
	demoSecondRunPasses = "ok  \texample.com/temperature"
	demoExitOK          = "Exit code: 0\n"
)

// demoScript is the scripted model: it thinks and plans, runs the tests,
// explains the bug, fixes it with a patch to two files, runs the tests
// again and sums up; what it says about a test run follows that run's
// result.
func demoScript(pace time.Duration, story *demoStory) []fakemodel.Step {
	plan := func(statuses ...string) string {
		steps := []string{"Run the tests", "Find the bug", "Fix it and add a test", "Run the tests again"}
		var items []string
		for i, st := range statuses {
			items = append(items, fmt.Sprintf(`{"step":%q,"status":%q}`, steps[i], st))
		}
		return `{"plan":[` + strings.Join(items, ",") + `]}`
	}
	// A first Go build in the sandbox fills agent-ls's own build cache,
	// which takes a while once.
	goTest := `{"command":["go","test","./..."],"timeout_ms":300000}`
	explain := "`go test` confirms it: the round trip fails. The bug is operator precedence in\n" +
		"`FahrenheitToCelsius` (convert.go:13): `f - 32*5/9` multiplies first, so it\n" +
		"computes `f - 17.78` instead of subtracting 32 before scaling. I'll group the\n" +
		"subtraction and add a test that pins a known value.\n"
	fix := "*** Begin Patch\n" +
		"*** Update File: convert.go\n" +
		"@@ func FahrenheitToCelsius(f float64) float64 {\n" +
		"-\treturn f - 32*5/9\n" +
		"+\treturn (f - 32) * 5 / 9\n" +
		" }\n" +
		"*** Update File: convert_test.go\n" +
		"@@\n" +
		" \t\t}\n" +
		" \t}\n" +
		" }\n" +
		"+\n" +
		"+func TestBodyTemperature(t *testing.T) {\n" +
		"+\tif got := FahrenheitToCelsius(98.6); got < 36.99 || got > 37.01 {\n" +
		"+\t\tt.Errorf(\"98.6°F gave %v°C, want 37\", got)\n" +
		"+\t}\n" +
		"+}\n" +
		"*** End Patch"
	summary := "Fixed: `FahrenheitToCelsius` now computes `(f - 32) * 5 / 9`, and\n" +
		"`TestBodyTemperature` pins 98.6°F = 37°C. `go test` passes.\n"
	say := func(text string) fakemodel.Item { return fakemodel.MessageN(text, len(fakemodel.Words(text))) }
	return []fakemodel.Step{
		{Name: "plan", Pace: pace, Reply: fakemodel.Reply{Items: []fakemodel.Item{
			fakemodel.Reasoning("", "The round-trip test should fail; the formula in FahrenheitToCelsius looks wrong."),
			fakemodel.FunctionCall("call_plan1", "update_plan", plan("in_progress", "pending", "pending", "pending")),
			fakemodel.FunctionCall("call_test1", "shell", goTest),
		}}},
		{Name: "fix", Pace: pace, Respond: func(r *fakemodel.Request) fakemodel.Reply {
			out := toolOutput(r, "call_test1")
			if !strings.Contains(out, demoFirstRunFails) || !strings.Contains(out, demoExitFailed) {
				story.deviated("the first `go test` did not fail on TestRoundTrip as the sample project should")
				return fakemodel.Reply{Items: []fakemodel.Item{say(unexpected("fail on TestRoundTrip", out))}}
			}
			return fakemodel.Reply{Items: []fakemodel.Item{
				say(explain),
				fakemodel.FunctionCall("call_plan2", "update_plan", plan("completed", "completed", "in_progress", "pending")),
				fakemodel.CustomToolCall("call_patch", "apply_patch", fix),
			}}
		}},
		{Name: "retest", Pace: pace, Reply: fakemodel.Reply{Items: []fakemodel.Item{
			fakemodel.FunctionCall("call_plan3", "update_plan", plan("completed", "completed", "completed", "in_progress")),
			fakemodel.FunctionCall("call_test2", "shell", goTest),
		}}},
		{Name: "summary", Pace: pace, Respond: func(r *fakemodel.Request) fakemodel.Reply {
			out := toolOutput(r, "call_test2")
			if !strings.Contains(out, demoSecondRunPasses) || !strings.Contains(out, demoExitOK) {
				story.deviated("the second `go test` did not pass after the fix")
				return fakemodel.Reply{Items: []fakemodel.Item{say(unexpected("pass after the fix", out))}}
			}
			return fakemodel.Reply{Items: []fakemodel.Item{
				fakemodel.FunctionCall("call_plan4", "update_plan", plan("completed", "completed", "completed", "completed")),
				say(summary),
			}}
		}},
		{Name: "done", Pace: pace, Reply: fakemodel.Reply{Items: []fakemodel.Item{
			fakemodel.Message("Done."),
		}}},
	}
}

// unexpected is what the model says when a test run did not do what the
// story needs: what it saw, and that it stops.
func unexpected(expected, output string) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	if len(lines) > 8 {
		lines = append(lines[:8], "…")
	}
	return fmt.Sprintf("I expected `go test` to %s, but it did not. It reported:\n\n    %s\n\nI'll stop here instead of guessing.\n",
		expected, strings.Join(lines, "\n    "))
}

// toolOutput finds the output of the call callID among the items of a
// Responses API request.
func toolOutput(r *fakemodel.Request, callID string) string {
	input, _ := r.JSON["input"].([]any)
	for _, it := range input {
		m, _ := it.(map[string]any)
		if m["type"] == "function_call_output" && m["call_id"] == callID {
			if s, ok := m["output"].(string); ok {
				return s
			}
		}
	}
	return ""
}

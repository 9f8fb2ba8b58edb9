//go:build unix

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// The commands the terminal flow's model starts with exec_command: a
// prompt in a pty that the user answers by typing into its buffer, and
// a command on pipes that runs until it is killed.
const (
	terminalAsk   = `printf 'Name? '; read n; echo "hello $n"`
	terminalSleep = `echo started; exec sleep 600`
	terminalIdle  = `exec sleep 601`
)

// TestNeovimPluginTerminals: a turn starts three command sessions with
// exec_command; :AgentTerminals lists them and opens one as a terminal
// buffer fed by the output events, named after its command; what the
// user types in terminal mode reaches the command, which ends, and the
// buffer says so; :AgentKillTerminal kills the second, opened on its
// own, and :AgentStopTerminals the third (testdata/plugin_work.lua, flow
// "terminal").
func TestNeovimPluginTerminals(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New(
				fakemodel.Answer(
					fakemodel.FunctionCall("e1", "exec_command", `{"cmd":"`+strings.ReplaceAll(terminalAsk, `"`, `\"`)+`","tty":true,"login":false,"yield_time_ms":500}`),
					fakemodel.FunctionCall("e2", "exec_command", `{"cmd":"`+terminalSleep+`","login":false,"yield_time_ms":500}`),
					fakemodel.FunctionCall("e3", "exec_command", `{"cmd":"`+terminalIdle+`","login":false,"yield_time_ms":250}`)),
				fakemodel.Say("Both run."),
			)
			t.Cleanup(m.Close)
			r, _ := startPluginDriver(t, nvim, "plugin_work.lua", m, "terminal")
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			if testing.Verbose() {
				t.Logf("editor output:\n%s", r.out.String())
			}
			if n := len(m.Requests()); n != 2 {
				t.Fatalf("%d model requests, want 2", n)
			}
		})
	}
}

// TestNeovimPluginQueue: while a turn runs, :AgentAsk queues three
// prompts (each time saying how many wait); :AgentQueue edits one,
// removes one and sends the last now; :AgentSteer sends a message into
// the turn. Both messages reach the model's next request of the running
// turn and show in the conversation; the edited prompt then runs as a
// turn of its own, the removed one never does. The turn's end is told
// with vim.notify, since the cursor is in the file's window.
func TestNeovimPluginQueue(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			// After the first response's first few events: the turn runs
			// and stays running until the driver has queued and steered.
			hold := fakemodel.NewGate(5)
			t.Cleanup(hold.Release)
			first := fakemodel.Answer(fakemodel.Message(fakemodel.Words("Working on it.")...),
				fakemodel.FunctionCall("u1", "update_plan", `{"plan":[{"step":"Work","status":"in_progress"}]}`))
			first.Gate = hold
			m := fakemodel.New(first, fakemodel.Say("First done."), fakemodel.Say("Edited one answered."))
			t.Cleanup(m.Close)
			r, _ := startPluginDriver(t, nvim, "plugin_work.lua", m, "queue")
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, []prompt{
				{"queued and steered", regexp.MustCompile(`DRIVER: steered\n`), func(string) (string, error) {
					hold.Release()
					return "", nil
				}},
			}, pluginBad...)
			if testing.Verbose() {
				t.Logf("editor output:\n%s", r.out.String())
			}
			reqs := m.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 3", len(reqs))
			}
			second, third := string(reqs[1].Body), string(reqs[2].Body)
			for _, want := range []string{"Also check the tests.", "Fourth prompt."} {
				if !strings.Contains(second, want) {
					t.Errorf("the running turn's next request lacks the steered %q:\n%s", want, second)
				}
			}
			if !strings.Contains(third, "Third prompt, edited.") {
				t.Errorf("the queued turn did not run the edited prompt:\n%s", third)
			}
			for i, req := range reqs {
				if strings.Contains(string(req.Body), "Second prompt.") {
					t.Errorf("request %d holds the removed prompt", i)
				}
			}
		})
	}
}

// TestNeovimPluginQueueResume: a prompt queued behind a turn that
// :AgentStop interrupts waits, and the bar and the conversation say so;
// :AgentResume runs it.
func TestNeovimPluginQueueResume(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			// Holds the first turn streaming until it is stopped.
			hold := fakemodel.NewGate(5)
			t.Cleanup(hold.Release)
			first := fakemodel.Answer(fakemodel.Message(fakemodel.Words("Working on it, slowly.")...))
			first.Gate = hold
			m := fakemodel.New(first, fakemodel.Say("Later answered."))
			t.Cleanup(m.Close)
			r, _ := startPluginDriver(t, nvim, "plugin_work.lua", m, "resume")
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			if testing.Verbose() {
				t.Logf("editor output:\n%s", r.out.String())
			}
			reqs := m.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			if !strings.Contains(string(reqs[1].Body), "Later prompt.") {
				t.Errorf("the resumed turn did not send the queued prompt:\n%s", reqs[1].Body)
			}
		})
	}
}

// questionsCall is the model's request_user_input: two questions.
const questionsCall = `{"questions":[` +
	`{"id":"db","header":"Database","question":"Which database should the service use?","options":[{"label":"Postgres","description":"Matches production."},{"label":"SQLite","description":"No server to run in tests."}]},` +
	`{"id":"name","header":"Name","question":"What should it be called?","options":[{"label":"svc","description":"Short."},{"label":"service","description":"Plain."}]}]}`

// TestNeovimPluginQuestion: the model's questions (request_user_input)
// are asked in vim.ui.select, options and Other, whose text is asked with
// vim.ui.input; the model reads the answers. question-withdraw: a
// question left open is withdrawn when :AgentStop ends its turn.
func TestNeovimPluginQuestion(t *testing.T) {
	for name, nvim := range neovims(t) {
		for _, flow := range []string{"question", "question-withdraw"} {
			t.Run(name+"/"+flow, func(t *testing.T) {
				steps := []fakemodel.Step{fakemodel.Answer(fakemodel.FunctionCall("q1", "request_user_input", questionsCall))}
				if flow == "question" {
					steps = append(steps, fakemodel.Say("Noted."))
				}
				m := fakemodel.New(steps...)
				t.Cleanup(m.Close)
				r, _ := startPluginDriver(t, nvim, "plugin_work.lua", m, flow)
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				defer cancel()
				r.play(ctx, nil, nil, pluginBad...)
				if testing.Verbose() {
					t.Logf("editor output:\n%s", r.out.String())
				}
				reqs := m.Requests()
				if flow == "question-withdraw" {
					if len(reqs) != 1 {
						t.Fatalf("%d model requests, want 1", len(reqs))
					}
					return
				}
				if len(reqs) != 2 {
					t.Fatalf("%d model requests, want 2", len(reqs))
				}
				for _, want := range []string{"SQLite", "my-service"} {
					if !strings.Contains(string(reqs[1].Body), want) {
						t.Errorf("the model was not told the answer %q:\n%s", want, reqs[1].Body)
					}
				}
			})
		}
	}
}

// TestNeovimPluginPlan: :AgentPlan switches to plan mode and asks; the
// model's patch is refused there and the file stays as it was; the bar
// says "plan mode". :AgentApprovePlan goes back to the default mode and
// starts the turn that carries the plan out, whose patch lands.
func TestNeovimPluginPlan(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New(
				fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", greetPatch)),
				fakemodel.Say("The plan: greet in German."),
				fakemodel.Answer(fakemodel.CustomToolCall("p2", "apply_patch", greetPatch)),
				fakemodel.Say("Carried out."),
			)
			t.Cleanup(m.Close)
			r, ws := startPluginDriver(t, nvim, "plugin_work.lua", m, "plan")
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			if testing.Verbose() {
				t.Logf("editor output:\n%s", r.out.String())
			}
			reqs := m.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d model requests, want 4", len(reqs))
			}
			if !strings.Contains(string(reqs[1].Body), "plan mode") {
				t.Errorf("the model was not told that plan mode refused the patch:\n%s", reqs[1].Body)
			}
			if !strings.Contains(string(reqs[2].Body), "Plan approved") {
				t.Errorf("the approval's turn does not carry the plan out:\n%s", reqs[2].Body)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, greetFile)); string(b) != greetAfter {
				t.Errorf("after the approved plan the file holds:\n%s", b)
			}
		})
	}
}

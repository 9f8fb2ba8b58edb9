package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// byKindLastWins answers as codecompanion and avante do: each option
// bound to a key by its kind, a later option of a kind taking the key of
// an earlier one, and the user pressing the key of kind.
func byKindLastWins(kind sdk.PermissionOptionKind) func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
	return func(p sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		keys := map[sdk.PermissionOptionKind]sdk.PermissionOptionId{}
		for _, o := range p.Options {
			keys[o.Kind] = o.OptionId
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{Outcome: "selected", OptionId: keys[kind]}}}
	}
}

// TestACPRejectMeansRejectInEveryClient: a client that binds options by
// kind, the last of a kind winning, rejects with its "no" key; the model
// is told the call was rejected and the turn goes on (it used to end it:
// an "Abort" option of the same kind took the key). Each kind is offered
// once, under an id that is its kind.
func TestACPRejectMeansRejectInEveryClient(t *testing.T) {
	dir := t.TempDir()
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", `{"command":["bash","-lc","echo no > no.txt"],"sandbox_permissions":"require_escalated","justification":"write outside the sandbox"}`)),
		fakemodel.Say("fine, I will not"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{answer: byKindLastWins(sdk.PermissionOptionKindRejectOnce)}
	r := startACP(t, m, dir, t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	res, err := r.prompt(id, "write no.txt")
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v (the reject ended the turn)", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "no.txt")); err == nil {
		t.Fatal("a rejected command ran")
	}
	reqs := m.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), `"call_id":"c1"`) || !strings.Contains(string(reqs[1].Body), "rejected") {
		t.Fatalf("the model was not told of the rejection: %d requests", len(reqs))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[sdk.PermissionOptionKind]bool{}
	for _, o := range c.perms[0].Options {
		if seen[o.Kind] || string(o.OptionId) != string(o.Kind) {
			t.Errorf("options %+v: one per kind, each with its kind as id", c.perms[0].Options)
		}
		seen[o.Kind] = true
	}
}

// TestACPQuietCommandShowsRunning: a command that needs no question and
// prints nothing goes pending → in_progress as it starts → completed, so
// a client that hides pending calls (codecompanion) shows it while it
// runs.
func TestACPQuietCommandShowsRunning(t *testing.T) {
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("q1", "shell", `{"command":["sleep","0.3"]}`)),
		fakemodel.Say("slept"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{} // asked anything, it would never answer
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	res, err := r.prompt(id, "sleep a little")
	if err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	var statuses []string
	for _, raw := range c.rawUpdates() {
		var u struct {
			ToolCallID string `json:"toolCallId"`
			Status     string `json:"status"`
		}
		if json.Unmarshal([]byte(raw), &u) == nil && u.ToolCallID == "q1" && u.Status != "" {
			statuses = append(statuses, u.Status)
		}
	}
	if got := strings.Join(statuses, ","); got != "pending,in_progress,completed" {
		t.Fatalf("q1 went %s; want pending,in_progress,completed", got)
	}
	if len(c.perms) != 0 {
		t.Errorf("%d permission requests for a sandboxed command", len(c.perms))
	}
}

// TestACPListsConversationsOnly: session/list leaves out sessions nobody
// prompted, the one just opened included, after a restart too.
func TestACPListsConversationsOnly(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	m := fakemodel.New(fakemodel.Say("hello"))
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, dir, state, c)
	r.initialize(false)
	talked := r.newSession()
	if _, err := r.prompt(talked, "say hello"); err != nil {
		t.Fatal(err)
	}
	empty := r.newSession()
	list := func(r *acpRun) []string {
		t.Helper()
		res, err := r.conn.ListSessions(r.ctx, sdk.ListSessionsRequest{Cwd: sdk.Ptr(dir)})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range res.Sessions {
			ids = append(ids, string(s.SessionId))
		}
		return ids
	}
	if got := list(r); len(got) != 1 || got[0] != talked {
		t.Errorf("listed %v; want only %s (not the empty %s)", got, talked, empty)
	}
	r.stdin.Close()
	r.cmd.Wait()
	r2 := startACP(t, m, dir, state, &acpClient{})
	r2.initialize(false)
	if got := list(r2); len(got) != 1 || got[0] != talked {
		t.Errorf("after a restart listed %v; want only %s", got, talked)
	}
}

// TestACPTitlesCannotRepaint: a command, a reason and a tool call title
// from the model reach clients that print them to a terminal (acpx) or a
// buffer: control characters and escape sequences come as visible
// escapes, and the command as it runs (bash quoting), never as bytes
// that could repaint the question.
func TestACPTitlesCannotRepaint(t *testing.T) {
	script := "touch x \r\x1b[2KRun ls -la"
	args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-lc", script}, "sandbox_permissions": "require_escalated", "justification": "tidy \x1b[31mup"})
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("e1", "shell", string(args))),
		fakemodel.Say("no"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{answer: pick("reject_once")}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	if _, err := r.prompt(id, "tidy up"); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perms) != 1 {
		reqs := m.Requests()
		t.Fatalf("%d permission requests; the model was sent %s", len(c.perms), reqs[len(reqs)-1].Body)
	}
	shown := []string{*c.perms[0].ToolCall.Title}
	b, _ := json.Marshal(c.perms[0].ToolCall.Content)
	var content []struct{ Content struct{ Text string } }
	json.Unmarshal(b, &content)
	for _, x := range content {
		shown = append(shown, x.Content.Text)
	}
	for _, n := range c.updates {
		if tc := n.Update.ToolCall; tc != nil {
			shown = append(shown, tc.Title)
		}
	}
	for _, s := range shown {
		if strings.ContainsAny(s, "\r\x1b") {
			t.Errorf("shown with raw control characters: %q", s)
		}
	}
	if !strings.Contains(shown[0], `$'touch x \r\x1b[2KRun ls -la'`) {
		t.Errorf("the permission's title does not show the command as it runs: %q", shown[0])
	}
}

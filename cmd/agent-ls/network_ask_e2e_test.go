package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// needProxy skips where the sandbox cannot give a session its own
// loopback network, or curl is missing.
func needProxy(t *testing.T) {
	t.Helper()
	if why := sandbox.Probe().Unavailable(); why != "" {
		t.Skip("SKIPPING: no sandbox here: " + why)
	}
	if c := sandbox.Probe(); !c.SessionNetwork {
		t.Skip("SKIPPING: no loopback network for a session here: " + c.SessionNetworkNote)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("SKIPPING: no curl")
	}
}

// registry is the test's package registry: a loopback HTTP server, and
// its host:port.
func registry(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "REGISTRY "+r.URL.Path) }))
	t.Cleanup(srv.Close)
	return "127.0.0.1:" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
}

// networkAsker is an editor that answers every network question with
// decision (and pattern) and keeps the questions.
type networkAsker struct {
	mu       sync.Mutex
	asked    []map[string]any
	decision string
	pattern  string
}

// networkAsker answers with pattern too, when set.
func (a *networkAsker) answer() map[string]string {
	ans := map[string]string{"decision": a.decision}
	if a.pattern != "" {
		ans["pattern"] = a.pattern
	}
	return ans
}

func (a *networkAsker) config() editor.Config {
	return editor.Config{Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
		if method != "agent/requestApproval" {
			return nil, nil
		}
		var p map[string]any
		json.Unmarshal(params, &p)
		a.mu.Lock()
		defer a.mu.Unlock()
		a.asked = append(a.asked, p)
		return a.answer(), nil
	}}
}

func (a *networkAsker) questions() []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []map[string]any
	for _, p := range a.asked {
		if p["kind"] == "network" {
			out = append(out, p)
		}
	}
	return out
}

// curlTurn runs one turn (in session, "" a new one) whose command
// fetches url, and returns the session and the command's output as the
// model got it.
func curlTurn(t *testing.T, s *session, m *fakemodel.Server, session, url string) (string, string) {
	t.Helper()
	params := map[string]any{"prompt": "fetch"}
	if session != "" {
		params["sessionId"] = session
	}
	n := len(m.Requests())
	turn := s.startTurn(params)
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	reqs := m.Requests()
	if len(reqs) < n+2 {
		t.Fatalf("the model was asked %d times in the turn", len(reqs)-n)
	}
	return turn.SessionID, lastOutput(reqs[n+1].Body)
}

// lastOutput is the output of the last function call in a model
// request's input.
func lastOutput(body []byte) string {
	var req struct {
		Input []struct {
			Type   string `json:"type"`
			Output string `json:"output"`
		} `json:"input"`
	}
	json.Unmarshal(body, &req)
	out := ""
	for _, it := range req.Input {
		if it.Type == "function_call_output" {
			out = it.Output
		}
	}
	return out
}

func curlSteps(url string, turns int) []fakemodel.Step {
	var steps []fakemodel.Step
	for i := range turns {
		steps = append(steps, fakemodel.Answer(shellCall("c"+strconv.Itoa(i), "curl", "-sS", "-w", " %{http_code}", url)), fakemodel.Say("done"))
	}
	return steps
}

// TestNetworkAlwaysHonouredOnNextStart: "always" (allowPersist) writes
// the exact host and port of a local service to the user's config,
// keeping the file's other bytes, and the next agent-ls (a new process)
// lets the same command through without asking.
func TestNetworkAlwaysHonouredOnNextStart(t *testing.T) {
	needProxy(t)
	hp := registry(t)
	url := "http://" + hp + "/pkg"
	const original = "# my settings\n[sandbox_workspace_write]\nnetwork = \"ask\" # ask per host\n"
	env := writeConfig(t, original)
	file := filepath.Join(strings.TrimPrefix(env, "XDG_CONFIG_HOME="), "agent-ls", "config.toml")

	first := &networkAsker{decision: "allowPersist"}
	m := fakemodel.New(curlSteps(url, 1)...)
	t.Cleanup(m.Close)
	s := startOn(t, m, t.TempDir(), []string{env}, first.config(), editor.Options{Events: true, Approvals: true})
	if _, out := curlTurn(t, s, m, "", url); !strings.Contains(out, "REGISTRY /pkg 200") {
		t.Fatalf("after allowPersist the command got: %s", out)
	}
	qs := first.questions()
	if len(qs) != 1 || qs[0]["host"] != "127.0.0.1" || !strings.Contains(qs[0]["reason"].(string), "on this machine") {
		t.Fatalf("questions %v", qs)
	}
	if pats, _ := qs[0]["patterns"].([]any); len(pats) != 1 || pats[0] != hp {
		t.Errorf("a local service is offered %v, want only %s", qs[0]["patterns"], hp)
	}
	data, _ := os.ReadFile(file)
	if want := "# my settings\n[sandbox_workspace_write]\nallowed_domains = [\"" + hp + "\"]\nnetwork = \"ask\" # ask per host\n"; string(data) != want {
		t.Errorf("the config is now\n%s\nwant\n%s", data, want)
	}
	s.ed.Disconnect()

	second := &networkAsker{decision: "rejectOnce"}
	m2 := fakemodel.New(curlSteps(url, 1)...)
	t.Cleanup(m2.Close)
	s2 := startOn(t, m2, t.TempDir(), []string{env}, second.config(), editor.Options{Events: true, Approvals: true})
	if _, out := curlTurn(t, s2, m2, "", url); !strings.Contains(out, "REGISTRY /pkg 200") {
		t.Errorf("the next start: %s", out)
	}
	if qs := second.questions(); len(qs) != 0 {
		t.Errorf("the next start asked again: %v", qs)
	}
}

// TestNetworkSessionAllowEndsWithTheSession: "allow for this session"
// holds for the session's later commands, unasked; a new session is
// asked again, and a denial there gives the proxy's 403.
func TestNetworkSessionAllowEndsWithTheSession(t *testing.T) {
	needProxy(t)
	hp := registry(t)
	url := "http://" + hp + "/pkg"
	env := writeConfig(t, "[sandbox_workspace_write]\nnetwork = \"ask\"\n")
	a := &networkAsker{decision: "allowAlways"}
	m := fakemodel.New(curlSteps(url, 3)...)
	t.Cleanup(m.Close)
	s := startOn(t, m, t.TempDir(), []string{env}, a.config(), editor.Options{Events: true, Approvals: true})
	id, out := curlTurn(t, s, m, "", url)
	if !strings.Contains(out, "REGISTRY /pkg 200") {
		t.Fatalf("first: %s", out)
	}
	if _, out := curlTurn(t, s, m, id, url); !strings.Contains(out, "REGISTRY /pkg 200") || len(a.questions()) != 1 {
		t.Fatalf("the same session again: %s, asked %d times", out, len(a.questions()))
	}
	a.mu.Lock()
	a.decision = "rejectOnce"
	a.mu.Unlock()
	other, out := curlTurn(t, s, m, "", url)
	if other == id || len(a.questions()) != 2 {
		t.Fatalf("a new session (%s after %s) was asked %d times in all, want 2", other, id, len(a.questions()))
	}
	if !strings.Contains(out, "403") || !strings.Contains(out, "denied network access to "+hp) {
		t.Errorf("denied in the new session: %s", out)
	}
}

// TestNetworkConfigEditHonouredWithoutRestart: an entry added to the
// user's config while agent-ls runs (by hand, or an "always" in another
// window) holds from the session's next turn on, unasked.
func TestNetworkConfigEditHonouredWithoutRestart(t *testing.T) {
	needProxy(t)
	hp := registry(t)
	url := "http://" + hp + "/pkg"
	env := writeConfig(t, "[sandbox_workspace_write]\nnetwork = \"ask\"\n")
	file := filepath.Join(strings.TrimPrefix(env, "XDG_CONFIG_HOME="), "agent-ls", "config.toml")
	a := &networkAsker{decision: "rejectOnce"}
	m := fakemodel.New(curlSteps(url, 2)...)
	t.Cleanup(m.Close)
	s := startOn(t, m, t.TempDir(), []string{env}, a.config(), editor.Options{Events: true, Approvals: true})
	id, out := curlTurn(t, s, m, "", url)
	if !strings.Contains(out, "403") || len(a.questions()) != 1 {
		t.Fatalf("before the edit: %s, asked %d times", out, len(a.questions()))
	}
	edited := "[sandbox_workspace_write]\nnetwork = \"ask\"\nallowed_domains = [\"" + hp + "\"]\n"
	if err := os.WriteFile(file, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, out := curlTurn(t, s, m, id, url); !strings.Contains(out, "REGISTRY /pkg 200") || len(a.questions()) != 1 {
		t.Errorf("after the edit: %s, asked %d times in all", out, len(a.questions()))
	}
}

// TestNetworkAlwaysWithAPatternNotOffered: an editor whose "always"
// names a pattern agent-ls did not offer (a wildcard for a local
// service, "*") gets the host for the session only: the config stays as
// it was, and the user is told.
func TestNetworkAlwaysWithAPatternNotOffered(t *testing.T) {
	needProxy(t)
	hp := registry(t)
	url := "http://" + hp + "/pkg"
	const original = "[sandbox_workspace_write]\nnetwork = \"ask\"\n"
	env := writeConfig(t, original)
	file := filepath.Join(strings.TrimPrefix(env, "XDG_CONFIG_HOME="), "agent-ls", "config.toml")
	for _, pattern := range []string{"*", "127.0.0.1"} {
		a := &networkAsker{decision: "allowPersist", pattern: pattern}
		m := fakemodel.New(curlSteps(url, 1)...)
		t.Cleanup(m.Close)
		s := startOn(t, m, t.TempDir(), []string{env}, a.config(), editor.Options{Events: true, Approvals: true})
		if _, out := curlTurn(t, s, m, "", url); !strings.Contains(out, "REGISTRY /pkg 200") {
			t.Errorf("pattern %q: the command got %s", pattern, out)
		}
		if data, _ := os.ReadFile(file); string(data) != original {
			t.Errorf("pattern %q was written:\n%s", pattern, data)
		}
		told := false
		for _, ev := range s.ed.Events() {
			told = told || (ev.Type == "message" && strings.Contains(ev.Text, "not one of the entries offered"))
		}
		if !told {
			t.Errorf("pattern %q: the user was not told", pattern)
		}
		s.ed.Disconnect()
	}
}

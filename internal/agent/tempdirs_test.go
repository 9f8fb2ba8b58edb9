package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// TestPatchToExcludedTmp: with exclude_slash_tmp a patch that adds a file
// in /tmp is outside the writable roots: under on-request it asks, and a
// rejection leaves no file; under "never" it is refused without asking.
// With /tmp writable (the control) the same patch applies without asking.
func TestPatchToExcludedTmp(t *testing.T) {
	t.Setenv("TMPDIR", "") // /tmp alone is the temporary directory
	tmp, err := os.MkdirTemp("/tmp", "agent-ls-excluded-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	for _, tc := range []struct {
		name     string
		exclude  bool
		ap       policy.ApprovalPolicy
		asked    int
		applied  bool
		decision string
	}{
		{"excluded, on-request", true, policy.OnRequest, 1, false, RejectOnce},
		{"excluded, never", true, policy.Never, 0, false, AutoReject},
		{"control", false, policy.OnRequest, 0, true, AutoAllow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "_")+".txt")
			patch := "*** Begin Patch\n*** Add File: " + target + "\n+hello\n*** End Patch"
			m := &scriptedModel{}
			m.add(callTools(model.Item{Type: model.ItemCustomToolCall, ID: "ct1", CallID: "p1", Name: "apply_patch", Input: patch}), say("m", "done"))
			fe := &askingFrontend{recorder: newRecorder(), answers: []string{RejectOnce}}
			mgr := managerWith(t, m, fe, func(o *Options) { o.ExcludeSlashTmp = tc.exclude })
			info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: tc.ap})
			if err != nil {
				t.Fatal(err)
			}
			mgr.StartTurn(info.SessionID, TurnInput{Prompt: "write to /tmp"})
			if done := fe.wait(t); done.Status != event.StatusCompleted {
				t.Fatalf("turn %+v", done)
			}
			if fe.count() != tc.asked {
				t.Errorf("asked %d times, want %d", fe.count(), tc.asked)
			}
			if tc.asked > 0 && fe.count() > 0 && !strings.Contains(fe.asked[0].Reason, "outside the writable folders") {
				t.Errorf("the question does not say why: %q", fe.asked[0].Reason)
			}
			if got := decisions(fe.recorder); len(got) != 1 || got[0] != tc.decision {
				t.Errorf("decisions %q, want %s", got, tc.decision)
			}
			if _, err := os.Stat(target); (err == nil) != tc.applied {
				t.Errorf("%s exists: %v, want %v", target, err == nil, tc.applied)
			}
		})
	}
}

// execSettings is a tool that reports the exec settings and writable roots
// its calls get.
type execSettings struct{ got chan tools.Env }

func (e *execSettings) Spec() tools.Spec {
	return tools.Spec{Type: tools.Function, Name: "settings", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (e *execSettings) Kind() event.ToolKind      { return event.KindRead }
func (e *execSettings) Mutating(*tools.Call) bool { return false }
func (e *execSettings) Title(*tools.Call) string  { return "settings" }
func (e *execSettings) Handle(_ context.Context, env *tools.Env, _ *tools.Call) (tools.Output, error) {
	e.got <- *env
	return tools.Output{Text: "ok"}, nil
}

// TestSandboxSettingsReachTheTurn: ExcludeTmpdirEnvVar, ExcludeSlashTmp
// and CacheRoot of the options reach the tools of a turn (the exec
// settings every command's sandbox is made from) and the session's
// boundary, whose writable roots the environment context lists; later
// defaults change new sessions only.
func TestSandboxSettingsReachTheTurn(t *testing.T) {
	tmpdir := t.TempDir()
	t.Setenv("TMPDIR", tmpdir)
	cache := filepath.Join(t.TempDir(), "cache")
	m := &scriptedModel{}
	m.add(callTools(fcall("c1", "settings", `{}`)), say("m", "ok"))
	rec := newRecorder()
	probe := &execSettings{got: make(chan tools.Env, 1)}
	mgr := managerWith(t, m, rec, func(o *Options) {
		o.ExcludeSlashTmp, o.ExcludeTmpdirEnvVar, o.CacheRoot = true, true, cache+"/"
	}, probe)
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "settings"})
	rec.wait(t)
	env := <-probe.got
	if x := env.Exec; !x.ExcludeSlashTmp || !x.ExcludeTmpdirEnvVar || x.CacheRoot != cache {
		t.Errorf("exec settings %+v", x)
	}
	roots := env.Boundary.WritableRoots()
	realTmpdir, _ := policy.Resolve(tmpdir)
	if slices.Contains(roots, "/tmp") || slices.Contains(roots, realTmpdir) {
		t.Errorf("writable roots %q hold an excluded temporary directory", roots)
	}
	var envText string
	for _, it := range m.request(0).Input {
		if strings.Contains(it.Text, "<environment_context>") {
			envText = it.Text
		}
	}
	if !strings.Contains(envText, "<writable_roots>") || strings.Contains(envText, "<root>/tmp</root>") || strings.Contains(envText, "<root>"+realTmpdir+"</root>") {
		t.Errorf("environment context:\n%s", envText)
	}

	// New defaults: /tmp and $TMPDIR writable again for new sessions.
	if err := mgr.UpdateDefaults(func(d *Defaults) { d.ExcludeSlashTmp, d.ExcludeTmpdirEnvVar, d.CacheRoot = false, false, "" }); err != nil {
		t.Fatal(err)
	}
	info2, _ := mgr.NewSession(SessionOptions{})
	s1, _ := mgr.session(info.SessionID)
	s2, _ := mgr.session(info2.SessionID)
	if !slices.Contains(s2.boundary.WritableRoots(), "/tmp") || slices.Contains(s1.boundary.WritableRoots(), "/tmp") {
		t.Errorf("writable roots: old session %q, new %q", s1.boundary.WritableRoots(), s2.boundary.WritableRoots())
	}
	if x := s2.execConfig(""); x.ExcludeSlashTmp || x.CacheRoot != "" {
		t.Errorf("new session exec settings %+v", x)
	}
	if err := mgr.UpdateDefaults(func(d *Defaults) { d.CacheRoot = "relative/cache" }); err == nil || !strings.Contains(err.Error(), "cache_root") {
		t.Errorf("a relative cache root: %v", err)
	}
}

package session

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// unsandboxed builds a manager whose commands run without a sandbox or
// questions, recording into st with its checkpoints beside the records.
func unsandboxed(t *testing.T, st *Store, m model.Client, fe agent.Frontend, cwd string) *agent.Manager {
	t.Helper()
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := agent.NewManager(agent.Options{Defaults: agent.Defaults{ModelName: "test-model", ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess},
		Model: m, Frontend: fe, Tools: reg, Cwd: cwd, Observe: st.Observe, CheckpointDir: st.CheckpointDir,
		SandboxSummary: func() string { return "test" }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	return mgr
}

func shellItems(callID, script string) []model.Item {
	args, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	return []model.Item{{Type: model.ItemFunctionCall, ID: "fc_" + callID, CallID: callID, Name: "shell", Arguments: string(args)}}
}

// TestRewindAfterRestart: a turn that patched one file and changed
// another by a command is rewound by a manager that brought the session
// back from its record; the history it restores has the turn out, and a
// third load of the record agrees. Pruning the session removes its
// checkpoints.
func TestRewindAfterRestart(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	for name, text := range map[string]string{"a.txt": "one\n", "c.txt": "sed me\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := New(dir, nil)
	m := &script{replies: [][]model.Item{answer("m0", "hello"), patchCall("p1", editPatch), shellItems("s1", "sed -i s/sed/SED/ c.txt"), answer("m1", "done")}}
	fe := newFrontend(agent.AllowOnce)
	mgr := unsandboxed(t, st, m, fe, ws)
	info, err := mgr.NewSession(agent.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr, fe, info.SessionID, "say hello")
	kept, _ := mgr.Record(info.SessionID)
	if tc := runTurn(t, mgr, fe, info.SessionID, "change things"); tc.Status != event.StatusCompleted {
		t.Fatalf("turn 2: %+v", tc)
	}
	mgr.Close()
	st.Close()

	st2 := New(dir, nil)
	ld, err := st2.Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	fe2 := newFrontend(agent.AllowOnce)
	mgr2 := unsandboxed(t, st2, &script{}, fe2, ws)
	if _, err := mgr2.Restore(ld.Record); err != nil {
		t.Fatal(err)
	}
	res, err := mgr2.Rewind(context.Background(), info.SessionID, "2", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 3 || len(res.Conflicts)+len(res.NotRestored) != 0 {
		t.Errorf("result %+v", res)
	}
	for name, want := range map[string]string{"a.txt": "one\n", "c.txt": "sed me\n"} {
		if got, _ := os.ReadFile(filepath.Join(ws, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b.txt, added by the rewound turn, is still there")
	}
	mgr2.Close()
	st2.Close()

	st3 := New(dir, nil)
	ld, err = st3.Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ld.Record.History) != len(kept.History) {
		t.Errorf("the record's history has %d items after the rewind, want %d", len(ld.Record.History), len(kept.History))
	}
	rewound := 0
	for _, cp := range ld.Record.Checkpoints {
		if cp.Rewound {
			rewound++
		}
	}
	last := ld.Items[len(ld.Items)-1]
	if rewound != 1 || last.Type != event.TypeRewound || !strings.Contains(string(last.JSON), info.SessionID+"-t2") {
		t.Errorf("%d checkpoints rewound; last item %s %s", rewound, last.Type, last.JSON)
	}
	if _, err := os.Stat(st3.CheckpointDir(info.SessionID)); err != nil {
		t.Fatalf("no checkpoint store beside the record: %v", err)
	}
	st3.now = func() time.Time { return time.Now().Add(48 * time.Hour) }
	if gone, err := st3.Prune(24 * time.Hour); err != nil || len(gone) != 1 {
		t.Fatalf("prune: %v, %v", gone, err)
	}
	if _, err := os.Stat(st3.CheckpointDir(info.SessionID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the checkpoints outlived the pruned session: %v", err)
	}
}

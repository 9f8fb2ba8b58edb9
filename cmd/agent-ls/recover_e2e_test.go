package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// A change set a dead agent-ls committed but did not finish (its journal
// and temporary file left as a kill leaves them) is completed when exec
// next starts, and the user is told once.
func TestExecFinishesAnInterruptedChangeSetOnce(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	target := filepath.Join(ws, "a.txt")
	temp := ".a.txt.agent-ls-999999-1"
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, temp), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	rec, _ := json.Marshal(map[string]any{"version": 1, "pid": 999999, "started": "2026-01-01T00:00:00Z", "label": "edit a.txt",
		"entries": []map[string]any{{"path": target, "shown": target, "temp": temp, "before": sum("old\n"), "after": sum("new\n")}}})
	dir := filepath.Join(state, "agent-ls", "journal")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "999999-0.journal"), append(rec, []byte("\ncommit\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	for run, want := range []bool{true, false} {
		m := fakemodel.New(fakemodel.Say("ok"))
		cmd := execCmd(t, m, "hi")
		cmd.Dir = ws
		cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+state)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if code := exitCode(cmd.Run()); code != 0 {
			t.Fatalf("run %d: exit %d: %s", run, code, stderr.String())
		}
		m.Close()
		told := strings.Contains(stderr.String(), `stopped while applying the change set "edit a.txt"; it has now completed it`)
		if told != want {
			t.Errorf("run %d: told %v, want %v:\n%s", run, told, want, stderr.String())
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("a.txt holds %q after recovery", b)
	}
	if _, err := os.Stat(filepath.Join(ws, temp)); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestExecAddDir: exec --add-dir makes a second folder part of the
// session: the model is told it is writable, a sandboxed command writes
// there but not in its .git, and a home folder given with --add-dir
// stays read-only and the terminal says why.
func TestExecAddDir(t *testing.T) {
	// Outside /tmp, which is writable on its own.
	base, err := os.MkdirTemp("/var/tmp", "agent-ls-folders-")
	if err != nil {
		t.Skip("no /var/tmp: ", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if base, err = filepath.EvalSymlinks(base); err != nil {
		t.Fatal(err)
	}
	ws1, ws2, home := filepath.Join(base, "ws1"), filepath.Join(base, "ws2"), filepath.Join(base, "home")
	for _, d := range []string{ws1, filepath.Join(ws2, ".git", "hooks"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "echo a > " + ws2 + "/file; echo b > " + ws2 + "/.git/hooks/pre-commit; echo c > " + home + "/note; true"
	args, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	m := fakemodel.New(fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", string(args))), fakemodel.Answer(fakemodel.Message("done")))
	defer m.Close()
	cmd := exec.Command(binary, "exec", "--add-dir", ws2, "--add-dir", home, "--sandbox", "workspace-write", "--yes", "write")
	cmd.Dir = ws1
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex",
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(ws2, "file")); err != nil || string(b) != "a\n" {
		t.Errorf("the command could not write in the second folder: %q, %v\n%s", b, err, stderr.String())
	}
	for _, f := range []string{filepath.Join(ws2, ".git", "hooks", "pre-commit"), filepath.Join(home, "note")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("ESCAPE: a sandboxed command wrote %s", f)
		}
	}
	if !strings.Contains(stderr.String(), "is your home folder or holds it") {
		t.Errorf("the terminal is not told that the home folder stays read-only:\n%s", stderr.String())
	}
	reqs := m.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	body := string(reqs[0].Body)
	for _, want := range []string{`\u003cfolder access=\"writable\"\u003e` + ws2, `\u003cfolder access=\"read-only\"\u003e` + home} {
		if !strings.Contains(body, want) && !strings.Contains(body, strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(want)) {
			t.Errorf("the environment context lacks %s:\n%s", want, body)
		}
	}
}

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// tsClientDir holds the TypeScript SDK client test (its packages come
// from its lockfile: make acp-client-deps).
const tsClientDir = "../../internal/acp/testdata/tsclient"

// TestACPWithTypeScriptClient drives agent-ls acp with the official ACP
// TypeScript SDK's client, which checks every message it receives
// against the protocol's schema: initialize, a streamed answer (and no
// question for the AGENTS.md files that are not there), a command
// allowed and one rejected (options bound by kind, the last of a kind
// winning), a quiet command shown running, a patch through
// fs/write_text_file and one on disk with diff blocks, an unsaved buffer
// read through fs/read_text_file, a missing file answered with empty
// content, a plan, a change set whose second write the client refuses
// (the restore shown before it is written), cancel during a slow stream,
// then after a restart session/list (without the session nobody
// prompted), session/load and /undo; and in a client that advertises
// _meta.terminal_output, a command session's live output as
// terminal_output and terminal_exit, and /terminals.
func TestACPWithTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(tsClientDir, "node_modules", "@agentclientprotocol", "sdk")); err != nil || serr != nil {
		if os.Getenv("AGENT_LS_ACP_CLIENT") == "required" {
			t.Fatalf("node or the client's packages are missing (make acp-client-deps): %v %v", err, serr)
		}
		t.Skip("node or the TypeScript client's packages are missing: make acp-client-deps installs them")
	}
	ws, state := t.TempDir(), t.TempDir()
	for name, text := range map[string]string{"a.txt": "one\ntwo\n", "b.txt": "saved text\n", "gone.txt": "bye\n", "d.txt": "d\n", "c1.txt": "c one\n", "c2.txt": "c two\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shell := func(id, script string) fakemodel.Step {
		return fakemodel.Answer(fakemodel.FunctionCall(id, "shell",
			`{"command":["bash","-lc",`+quoteJSON(script)+`],"sandbox_permissions":"require_escalated","justification":"the test asks"}`))
	}
	slow := fakemodel.NewGate(6) // two text deltas out, then the stream waits
	t.Cleanup(slow.Release)
	m := fakemodel.New(
		fakemodel.Say("hello from agent-ls"),
		shell("sh1", "echo yes > allowed.txt"), fakemodel.Say("done"),
		shell("sh2", "echo no > rejected.txt"), fakemodel.Say("not done"),
		fakemodel.Answer(fakemodel.FunctionCall("sh3", "shell", `{"command":["sleep","0.3"]}`)), fakemodel.Say("slept"),
		fakemodel.Answer(fakemodel.CustomToolCall("ed1", "apply_patch", "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n*** Add File: new.txt\n+fresh\n*** End Patch")),
		fakemodel.Say("patched"),
		fakemodel.Answer(fakemodel.CustomToolCall("ed2", "apply_patch", "*** Begin Patch\n*** Delete File: gone.txt\n*** Update File: d.txt\n@@\n-d\n+D\n*** End Patch")),
		fakemodel.Say("patched on disk"),
		fakemodel.Answer(fakemodel.FunctionCall("rd1", "read_file", `{"file_path":`+quoteJSON(filepath.Join(ws, "b.txt"))+`}`)),
		fakemodel.Say("read it"),
		fakemodel.Answer(fakemodel.FunctionCall("rd2", "read_file", `{"file_path":`+quoteJSON(filepath.Join(ws, "missing.txt"))+`}`)),
		fakemodel.Say("it is not there"),
		fakemodel.Answer(fakemodel.FunctionCall("pl1", "update_plan", `{"plan":[{"step":"look","status":"completed"},{"step":"change","status":"in_progress"},{"step":"test","status":"pending"}]}`)),
		fakemodel.Say("planned"),
		fakemodel.Answer(fakemodel.CustomToolCall("ed3", "apply_patch", "*** Begin Patch\n*** Update File: c1.txt\n@@\n-c one\n+C ONE\n*** Update File: c2.txt\n@@\n-c two\n+C TWO\n*** End Patch")),
		fakemodel.Say("refused"),
		fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("a ", "slow ", "answer ", "that ", "never ", "ends")}}, Gate: slow},
		fakemodel.Answer(fakemodel.FunctionCall("tx1", "exec_command", `{"cmd":"echo first; sleep 0.5; echo second","login":false,"yield_time_ms":250}`)),
		fakemodel.Say("it runs"),
	)
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs")
	cmd.Dir = tsClientDir
	cmd.Env = append(os.Environ(), "AGENT_LS="+binary, "WORKSPACE="+ws, "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test",
		"AGENT_LS_MODEL=gpt-5-codex", "XDG_STATE_HOME="+state)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nPASS") {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The reference servers of the MCP project, from npm (testdata/npm, pinned
// in its package-lock.json), over stdio: servers we did not write.

// TestEverythingServer: the reference server that exercises the whole
// protocol: listing, text, images, resource links, our environment kept
// from it, and a call that outlives its timeout.
func TestEverythingServer(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-must-not-leak")
	t.Setenv("AGENT_LS_TEST_SECRET", "hunter2")
	cfg := npmServer(t, "everything", "mcp-server-everything", "stdio")
	cfg.Env = map[string]string{"GIVEN_BY_CONFIG": "configured"}
	cfg.ToolTimeout = 1500 * time.Millisecond
	set, reg, fails := startSet(t, cfg)

	st := statusOf(t, set, "everything")
	if st.State != StateReady {
		t.Fatalf("status %+v", st)
	}
	for _, want := range []string{"echo", "get-env", "get-sum", "get-tiny-image", "get-resource-links", "trigger-long-running-operation"} {
		if !slices.Contains(st.Tools, want) {
			t.Errorf("tool %s missing from %q", want, st.Tools)
		}
		if _, ok := reg.Lookup("everything__" + want); !ok {
			t.Errorf("everything__%s is not registered", want)
		}
	}
	// The $schema of zod's output is not offered to the model.
	h, _ := reg.Lookup("everything__echo")
	if sp := h.Spec(); strings.Contains(string(sp.Parameters), "$schema") || !strings.Contains(string(sp.Parameters), `"message"`) {
		t.Errorf("echo's schema: %s", sp.Parameters)
	}
	// Specs come out sorted by name, the order the model is offered.
	if names := reg.Names(); !slices.IsSorted(names) {
		t.Errorf("names not sorted: %q", names)
	}

	if r := call(t, reg, nil, "everything__echo", map[string]any{"message": "hello"}); r.Output.Failed || !strings.Contains(r.Output.Text, "hello") {
		t.Errorf("echo: %+v", r.Output)
	}
	if r := call(t, reg, nil, "everything__get-sum", map[string]any{"a": 2, "b": 40}); !strings.Contains(r.Output.Text, "42") {
		t.Errorf("get-sum: %+v", r.Output)
	}
	r := call(t, reg, nil, "everything__get-tiny-image", map[string]any{})
	if len(r.Output.Images) != 1 || !strings.HasPrefix(r.Output.Images[0], "data:image/png;base64,") {
		t.Errorf("get-tiny-image: images %d, text %q", len(r.Output.Images), r.Output.Text)
	}
	r = call(t, reg, nil, "everything__get-resource-links", map[string]any{"count": 2})
	mustContain(t, "resource links", r.Output.Text, "[resource link] ")

	env := call(t, reg, nil, "everything__get-env", map[string]any{}).Output.Text
	for _, secret := range []string{"sk-test-must-not-leak", "hunter2", "OPENAI_API_KEY", "AGENT_LS_TEST_SECRET"} {
		if strings.Contains(env, secret) {
			t.Errorf("the server sees %s in its environment:\n%s", secret, env)
		}
	}
	mustContain(t, "get-env", env, "GIVEN_BY_CONFIG", "configured", "PATH")

	// A call that outlives tool_timeout_sec is an error, and the server
	// is started again for the next call.
	r = call(t, reg, nil, "everything__trigger-long-running-operation", map[string]any{"duration": 30, "steps": 3})
	if !r.Output.Failed {
		t.Fatalf("long operation: %+v", r.Output)
	}
	mustContain(t, "timeout output", r.Output.Text, "trigger-long-running-operation timed out after 1.5s (tool_timeout_sec)", "restarted on its next use")
	if st := statusOf(t, set, "everything"); st.State != StateFailed {
		t.Errorf("after a timeout: %+v", st)
	}
	if r := call(t, reg, nil, "everything__echo", map[string]any{"message": "again"}); r.Output.Failed || !strings.Contains(r.Output.Text, "again") {
		t.Errorf("echo after the restart: %+v", r.Output)
	}
	if st := statusOf(t, set, "everything"); st.State != StateReady {
		t.Errorf("after the restart: %+v", st)
	}
	if got := fails.list(); len(got) > 0 {
		t.Errorf("failures reported: %q", got)
	}
}

// TestFilesystemServer: the reference file server, allowed one folder:
// enabled_tools narrows what is offered, a read gives the file's text, a
// read outside the folder is the server's isError, which the model reads.
func TestFilesystemServer(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(dir), "elsewhere.txt")
	cfg := npmServer(t, "fs", "mcp-server-filesystem", dir)
	cfg.EnabledTools = []string{"read_text_file", "write_file", "list_directory"}
	set, reg, _ := startSet(t, cfg)
	if st := statusOf(t, set, "fs"); !slices.Equal(st.Tools, []string{"list_directory", "read_text_file", "write_file"}) {
		t.Fatalf("status %+v", st)
	}
	read, _ := reg.Lookup("fs__read_text_file")
	write, _ := reg.Lookup("fs__write_file")
	if read.Mutating(nil) || !write.Mutating(nil) {
		t.Errorf("read_text_file mutating %v, write_file mutating %v", read.Mutating(nil), write.Mutating(nil))
	}
	r := call(t, reg, nil, "fs__read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")})
	if r.Output.Failed || !strings.Contains(r.Output.Text, "the answer is 42") {
		t.Errorf("read: %+v", r.Output)
	}
	r = call(t, reg, nil, "fs__read_text_file", map[string]any{"path": outside})
	if !r.Output.Failed || !r.Ran {
		t.Errorf("read outside: %+v", r)
	}
	mustContain(t, "read outside", strings.ToLower(r.Output.Text), "access denied")
	if st := statusOf(t, set, "fs"); st.State != StateReady {
		t.Errorf("an isError result broke the server: %+v", st)
	}
}

//go:build unix

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// binDir holds agent-ls and agent-ls-sandbox as `make install` put them.
var binDir string

// TestMain installs agent-ls the way the README says, into a temporary
// PREFIX, so the editors find it on PATH as a user's would.
func TestMain(m *testing.M) {
	if !hasProgram("nvim") && !hasProgram("emacs") {
		os.Exit(m.Run()) // every test skips
	}
	prefix, err := os.MkdirTemp("", "agent-ls-editors-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	install := exec.Command("make", "-C", "..", "install", "PREFIX="+prefix)
	install.Stdout, install.Stderr = os.Stderr, os.Stderr
	if err := install.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "make install:", err)
		os.RemoveAll(prefix)
		os.Exit(1)
	}
	binDir = filepath.Join(prefix, "bin")
	code := m.Run()
	os.RemoveAll(prefix)
	os.Exit(code)
}

// The file the flows edit: non-ASCII text (UTF-16 surrogates after the
// edit) so positions are tested for real. JavaScript, because opening a
// Python file makes Neovim probe for its Python provider, which takes
// seconds.
const (
	greetFile   = "greet.js"
	greetBefore = "// Grüße aus Köln: a greeting\nfunction greet(name) {\n  return \"Hallo, \" + name + \"!\";\n}\n\nconsole.log(greet(\"Welt\"));\n"
	greetAfter  = "// Grüße aus Köln: a greeting\nfunction greet(name) {\n  return \"Grüß dich, \" + name + \" 👋\";\n}\n\nconsole.log(greet(\"Welt\"));\n"
	greetPatch  = "*** Begin Patch\n*** Update File: greet.js\n@@\n function greet(name) {\n-  return \"Hallo, \" + name + \"!\";\n+  return \"Grüß dich, \" + name + \" 👋\";\n*** End Patch\n"
)

// Answers of the scripted turns, as the editor must show them.
const (
	firstAnswer  = "First answer: the greeting is fixed."
	secondAnswer = "Second answer: greet builds a greeting."
)

// gates hold the model's answers: start1 and start2 hold the first and
// second turns before they stream, hold keeps the third one streaming
// until the user stops it.
type gates struct{ start1, start2, hold *fakemodel.Gate }

func newGates(t *testing.T) gates {
	g := gates{fakemodel.NewGate(0), fakemodel.NewGate(0), fakemodel.NewGate(4)}
	t.Cleanup(func() {
		g.start1.Release()
		g.start2.Release()
		g.hold.Release()
	})
	return g
}

// whenReached answers with f once the held model answer has started: the
// turn to stop has then sent its request, so the count of model requests
// does not depend on how fast the server got there.
func whenReached(g *fakemodel.Gate, f func(string) (string, error)) func(string) (string, error) {
	return func(shown string) (string, error) {
		select {
		case <-g.Reached():
		case <-time.After(deadline):
			return "", errorf("the turn to stop never reached the model")
		}
		return f(shown)
	}
}

// fullFlow is the model's side of the whole flow: a turn that streams,
// patches the buffer, runs a command behind an approval (which must see
// the patched file) and answers; a second turn in the same conversation;
// a third that hangs mid-stream until the user stops it.
func fullFlow(g gates) []fakemodel.Step {
	first := fakemodel.Answer(fakemodel.Message(fakemodel.Words("I will fix the greeting.")...),
		fakemodel.CustomToolCall("p1", "apply_patch", greetPatch))
	first.Gate = g.start1
	second := fakemodel.Say(secondAnswer)
	second.Gate = g.start2
	return []fakemodel.Step{
		first,
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell",
			`{"command":["grep","-c","Grüß dich","greet.js"],"sandbox_permissions":"require_escalated","justification":"check the file on disk"}`)),
		fakemodel.Say(firstAnswer),
		second,
		{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message(fakemodel.Words("Refactoring this will take a while.")...)}}, Gate: g.hold},
	}
}

// bufferFlow is one turn that patches the buffer and answers.
func bufferFlow(g gates) []fakemodel.Step {
	first := fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", greetPatch))
	first.Gate = g.start1
	return []fakemodel.Step{first, fakemodel.Say(firstAnswer)}
}

// checkFullFlow checks what the model was sent: the selection, the
// command's view of the patched file, and one conversation across turns.
func checkFullFlow(t *testing.T, m *fakemodel.Server) {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	body := func(i int) string { return string(reqs[i].Body) }
	if !strings.Contains(body(0), "Fix this code.") || !strings.Contains(body(0), `return \"Hallo, \" + name`) {
		t.Errorf("the first request lacks the prompt or the selection:\n%s", body(0))
	}
	// grep -c prints 1 and exits 0 only if the file on disk has the patch.
	if !regexp.MustCompile(`Exit code: 0\\nWall time: [0-9.]+ seconds\\nOutput:\\n1"`).MatchString(body(2)) {
		t.Errorf("the command did not see the patched file:\n%s", body(2))
	}
	for _, want := range []string{"Fix this code.", firstAnswer, "Explain what this code does."} {
		if !strings.Contains(body(3), want) {
			t.Errorf("the second turn's request lacks %q: the conversation did not continue", want)
		}
	}
}

// checkShown checks that the editor's terminal shows each of want.
func checkShown(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("the terminal does not show %q", w)
		}
	}
}

// checkSaved checks that the file holds the patched text the user saved.
func checkSaved(t *testing.T, ws string) {
	t.Helper()
	if b, _ := os.ReadFile(filepath.Join(ws, greetFile)); string(b) != greetAfter {
		t.Errorf("saved file:\n%s", b)
	}
}

// workspace makes a workspace with the file to edit, and a home for the
// editor and agent-ls to write in.
func workspace(t *testing.T) (ws, home string) {
	t.Helper()
	ws, home = t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, greetFile), []byte(greetBefore), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, home
}

// environment is what the editor runs with: its own home and state, the
// installed agent-ls first on PATH, the fake model.
func environment(home, modelURL string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME", name == "PATH", strings.HasPrefix(name, "XDG_"), strings.HasPrefix(name, "OPENAI_"),
			strings.HasPrefix(name, "AGENT_LS_"), strings.HasPrefix(name, "NVIM"), name == "VIMINIT", name == "EMACSLOADPATH":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"OPENAI_BASE_URL="+modelURL,
		"OPENAI_API_KEY=test",
	)
	return append(env, extra...)
}

// files are what an editor run starts from.
type files struct {
	ws, home     string // the workspace, the editor's home
	init, driver string // the init file (the README's snippet), the driver
}

// prepare makes a workspace and writes the README's snippet under heading
// (changed by edit, when set) as the init file initName.
func prepare(t *testing.T, heading, lang, initName, driver string, edit func(string) string) files {
	t.Helper()
	f := files{init: filepath.Join(t.TempDir(), initName)}
	f.ws, f.home = workspace(t)
	snippet := readmeSnippet(t, heading, lang)
	if edit != nil {
		snippet = edit(snippet)
	}
	if err := os.WriteFile(f.init, []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	if f.driver, err = filepath.Abs(filepath.Join("testdata", driver)); err != nil {
		t.Fatal(err)
	}
	return f
}

// env is the environment of an editor run of flow.
func (f files) env(m *fakemodel.Server, flow string) []string {
	return environment(f.home, m.URL(), "AGENT_LS_TEST_WS="+f.ws, "AGENT_LS_TEST_FLOW="+flow)
}

// readmeSnippet returns the first fenced block of lang marked runnable
// after heading in the README: the tests run exactly what users are told
// to paste.
func readmeSnippet(t *testing.T, heading, lang string) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README has no heading %q", heading)
	}
	s = s[i:]
	fence := "\n```" + lang + " " + runnableMark + "\n"
	start := strings.Index(s, fence)
	if start < 0 {
		t.Fatalf("README has no %s block marked %s after %q", lang, runnableMark, heading)
	}
	s = s[start+len(fence):]
	end := strings.Index(s, "\n```\n")
	if end < 0 {
		t.Fatalf("unterminated %s block after %q", lang, heading)
	}
	return s[:end+1]
}

// transcript is an editor's terminal output (stdout and stderr), which
// the test reads to answer its prompts as a user would.
type transcript struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
	exited  bool
}

func newTranscript() *transcript { return &transcript{changed: make(chan struct{})} }

func (o *transcript) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	close(o.changed)
	o.changed = make(chan struct{})
	return len(p), nil
}

func (o *transcript) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

func (o *transcript) exit() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.exited = true
	close(o.changed)
	o.changed = make(chan struct{})
}

// waitFor waits for want to match the output from offset from on, and
// returns the text from there to the end of the match and the offset
// after it. A match of any of bad first, the editor exiting, or ctx ending
// is an error.
func (o *transcript) waitFor(ctx context.Context, from int, want *regexp.Regexp, bad ...*regexp.Regexp) (string, int, error) {
	for {
		o.mu.Lock()
		text := o.buf.String()[from:]
		changed, exited := o.changed, o.exited
		o.mu.Unlock()
		loc := want.FindStringIndex(text)
		for _, b := range bad {
			if l := b.FindStringIndex(text); l != nil && (loc == nil || l[0] < loc[0]) {
				return "", from, fmt.Errorf("unexpected %q while waiting for %q", text[l[0]:l[1]], want)
			}
		}
		if loc != nil {
			return text[:loc[1]], from + loc[1], nil
		}
		if exited {
			return "", from, fmt.Errorf("the editor exited while waiting for %q", want)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", from, fmt.Errorf("waiting for %q: %w", want, ctx.Err())
		}
	}
}

// prompt is one question the editor asks during a flow, and how the user
// answers it: answer gets the text shown since the last answer.
type prompt struct {
	name   string
	until  *regexp.Regexp
	answer func(shown string) (string, error)
}

// editorRun is a running editor.
type editorRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *transcript
	done chan error
}

// startEditor runs cmd in its own process group, which is killed when
// the test ends: nothing it started (agent-ls, commands) outlives it.
func startEditor(t *testing.T, cmd *exec.Cmd) *editorRun {
	t.Helper()
	out := newTranscript()
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &editorRun{t: t, cmd: cmd, out: out, done: make(chan error, 1)}
	go func() {
		err := cmd.Wait()
		out.exit()
		r.done <- err
	}()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if t.Failed() {
			t.Logf("editor output:\n%s", out.String())
		}
	})
	return r
}

// play answers the prompts in order, failing on any of bad, then waits
// for the driver to report that every check passed and the editor to
// exit.
func (r *editorRun) play(ctx context.Context, send func(string) error, prompts []prompt, bad ...*regexp.Regexp) {
	r.t.Helper()
	bad = append(bad, regexp.MustCompile(`DRIVER FAIL: [^\n]*`))

	at := 0
	for _, p := range prompts {
		shown, next, err := r.out.waitFor(ctx, at, p.until, bad...)
		if err != nil {
			r.t.Fatalf("prompt %q: %v", p.name, err)
		}
		at = next
		keys, err := p.answer(shown)
		if err != nil {
			r.t.Fatalf("prompt %q: %v\nshown:\n%s", p.name, err, shown)
		}
		if keys == "" {
			continue // answered outside the editor
		}
		if err := send(keys); err != nil {
			r.t.Fatalf("answering %q: %v", p.name, err)
		}
	}
	if _, _, err := r.out.waitFor(ctx, at, regexp.MustCompile(`DRIVER DONE`), bad...); err != nil {
		r.t.Fatal(err)
	}
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Fatalf("the editor exited with %v", err)
		}
	case <-ctx.Done():
		r.t.Fatal("the editor did not exit")
	}
	// The editor's agent-ls sees its stdin close and exits on its own.
	// The editor has exited, so no new one starts: wait for those left.
	for _, pid := range serversRunning() {
		wait := time.Minute
		if d, ok := ctx.Deadline(); ok {
			wait = time.Until(d)
		}
		if exited, err := proctest.WaitExit(pid, wait); err != nil || !exited {
			r.t.Fatalf("agent-ls process %d outlived the editor (%v)", pid, err)
		}
	}
}

// serversRunning lists the processes running the agent-ls that
// TestMain installed.
func serversRunning() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && filepath.Dir(exe) == binDir {
			pids = append(pids, pid)
		}
	}
	return pids
}

// pick finds the number the editor shows before title in a numbered list
// ("3: Agent: Stop", "2. Allow always").
func pick(shown, title string) (string, error) {
	m := regexp.MustCompile(`(?m)^\s*(\d+)[.:] `+regexp.QuoteMeta(title)+`\s*$`).FindAllStringSubmatch(shown, -1)
	if len(m) == 0 {
		return "", fmt.Errorf("%q is not offered", title)
	}
	return m[len(m)-1][1], nil
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// deadline is generous: the checks wait for conditions, never for time.
const deadline = 3 * time.Minute

func hasProgram(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// requireProgram skips when an editor is missing (make test installs it
// through scripts/deps.sh).
func requireProgram(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (make deps installs it)", name)
	}
	return path
}

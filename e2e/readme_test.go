//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/testenv"
)

// runnableMark follows the language of a README block that a test runs
// (```sh runnable): the block must work exactly as written.
const runnableMark = "runnable"

// readmeBlock is a fenced block of the README.
type readmeBlock struct {
	heading string // the last heading before it, "## Quick start"
	lang    string // the info string's first word
	mark    string // what follows it ("runnable" or "")
	text    string
}

// readmeBlocks returns the README's fenced blocks in order.
func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []readmeBlock
	var heading string
	var cur *readmeBlock
	var text strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			info := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			cur = &readmeBlock{heading: heading}
			if len(info) > 0 {
				cur.lang = info[0]
			}
			if len(info) > 1 {
				cur.mark = strings.Join(info[1:], " ")
			}
			text.Reset()
		case cur != nil && trimmed == "```":
			cur.text = text.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			text.WriteString(line + "\n")
		case strings.HasPrefix(line, "#"):
			heading = line
		}
	}
	if cur != nil {
		t.Fatalf("README: the %s block under %q is not closed", cur.lang, cur.heading)
	}
	return blocks
}

// runnableSections are where the README's runnable blocks may be, and the
// test that runs them: a mark anywhere else would promise a test that
// does not exist.
var runnableSections = map[string]string{
	"sh ## Quick start":          "TestReadmeQuickStart",
	"lua ### Neovim plugin":      "TestNeovimPlugin (pluginSnippet)",
	"lua ### Neovim 0.7–0.9":     "TestNeovimFullFlow (readmeSnippet)",
	"elisp ### Emacs with eglot": "TestEmacsFullFlow (readmeSnippet)",
}

// TestReadmeRunnableMarks: every block the README marks runnable lies in
// a section whose test runs it, and every such section has one, so a
// mark cannot promise a run that does not happen.
func TestReadmeRunnableMarks(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range readmeBlocks(t) {
		if b.mark == "" {
			continue
		}
		if b.mark != runnableMark {
			t.Errorf("README: the %s block under %q is marked %q; the only mark is %q", b.lang, b.heading, b.mark, runnableMark)
			continue
		}
		key := b.lang + " " + b.heading
		if runnableSections[key] == "" {
			t.Errorf("README: the %s block under %q is marked runnable, but no test runs that section", b.lang, b.heading)
		}
		seen[key] = true
	}
	for key, test := range runnableSections {
		if !seen[key] {
			t.Errorf("README: no block marked runnable for %s, which %s runs", key, test)
		}
	}
}

// quickStartStep checks one runnable block of the Quick start: the block
// is the one whose text contains command; check looks at what it printed.
type quickStartStep struct {
	command string
	check   func(t *testing.T, out stepOutput)
}

// stepOutput is what a step printed, and which agent-ls the shell found
// on PATH after it.
type stepOutput struct{ stdout, stderr, found string }

// TestReadmeQuickStart runs the README's Quick start as a newcomer
// would, block after block in one shell, in a private home, with the fake
// model as the local OpenAI-compatible server it names, and checks what
// each step printed, so the README cannot drift from the program.
func TestReadmeQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs agent-ls")
	}
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", os.Getenv("HOME")) // restored after the test
	if err := testenv.PrivateHome(home); err != nil {
		t.Fatal(err)
	}
	const answer = "TODO list: one TODO, in main.go line 3."
	m := fakemodel.New(fakemodel.Say(answer))
	t.Cleanup(m.Close)
	if err := os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n\n// TODO: greet the user\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	installed := filepath.Join(home, ".local", "bin", "agent-ls")
	steps := quickStartSteps(t, installed, answer)
	blocks := quickStartBlocks(t, steps, map[string]string{
		"http://127.0.0.1:11434/v1": m.URL(),
		"cd your-project":           "cd " + strconv.Quote(proj),
	})
	outs := runSteps(t, home, blocks)
	for i, st := range steps {
		st.check(t, outs[i])
	}
	checkQuickStartRequest(t, m)
}

// quickStartSteps are the Quick start's steps in the README's order.
func quickStartSteps(t *testing.T, installed, answer string) []quickStartStep {
	return []quickStartStep{
		{"make install", func(t *testing.T, out stepOutput) {
			if !strings.Contains(out.stdout, "install -m 0755 bin/agent-ls bin/agent-ls-sandbox") {
				t.Errorf("make install did not install the binaries:\n%s", out.stdout)
			}
			for _, name := range []string{"agent-ls", "agent-ls-sandbox"} {
				if fi, err := os.Stat(filepath.Join(filepath.Dir(installed), name)); err != nil || fi.Mode()&0o111 == 0 {
					t.Errorf("make install left no executable %s in ~/.local/bin: %v", name, err)
				}
			}
		}},
		{"agent-ls version", func(t *testing.T, out stepOutput) {
			if out.found != installed {
				t.Errorf("after the PATH step the shell finds agent-ls at %q, want %s", out.found, installed)
			}
			if !regexp.MustCompile(`(?m)^agent-ls \S+$`).MatchString(out.stdout) {
				t.Errorf("agent-ls version printed %q", out.stdout)
			}
		}},
		{"agent-ls demo", func(t *testing.T, out stepOutput) {
			for _, want := range []string{"agent-ls demo: an editor, the agent-ls server and a scripted model", "turn completed", "Shut the server down (exit status 0)"} {
				if !strings.Contains(out.stdout, want) {
					t.Errorf("agent-ls demo did not print %q:\n%s\n%s", want, out.stdout, out.stderr)
				}
			}
		}},
		{"export AGENT_LS_MODEL", func(t *testing.T, out stepOutput) {
			if out.stdout != "" || out.stderr != "" {
				t.Errorf("pointing at the local server printed %q %q", out.stdout, out.stderr)
			}
		}},
		{"agent-ls exec", func(t *testing.T, out stepOutput) {
			if strings.TrimSpace(out.stdout) != answer {
				t.Errorf("agent-ls exec printed %q, want the model's answer %q (stderr: %s)", out.stdout, answer, out.stderr)
			}
		}},
	}
}

// quickStartBlocks returns the Quick start's runnable shell blocks, one
// per step and in its order, with the server and project of the test in
// place of the README's.
func quickStartBlocks(t *testing.T, steps []quickStartStep, replace map[string]string) []string {
	t.Helper()
	var blocks []string
	for _, b := range readmeBlocks(t) {
		if b.heading == "## Quick start" && b.mark == runnableMark {
			blocks = append(blocks, b.text)
		}
	}
	if len(blocks) != len(steps) {
		t.Fatalf("the Quick start has %d runnable blocks, the test checks %d steps: give each new step its check", len(blocks), len(steps))
	}
	for i, st := range steps {
		if !strings.Contains(blocks[i], st.command) {
			t.Fatalf("the Quick start's block %d does not run %q:\n%s", i+1, st.command, blocks[i])
		}
	}
	joined := strings.Join(blocks, "")
	for from, to := range replace {
		if !strings.Contains(joined, from) {
			t.Fatalf("the Quick start no longer says %q, which the test replaces", from)
		}
		for i := range blocks {
			blocks[i] = strings.ReplaceAll(blocks[i], from, to)
		}
	}
	return blocks
}

// stepMark separates the steps' outputs; the line after a step names the
// agent-ls the shell finds.
const stepMark = "@@quick-start-step@@"

// runSteps runs the blocks in one bash, from the repository's root as a
// clone's user would, and returns each block's output.
func runSteps(t *testing.T, home string, blocks []string) []stepOutput {
	t.Helper()
	var script strings.Builder
	script.WriteString("set -e\n")
	for _, b := range blocks {
		script.WriteString(b)
		script.WriteString("echo " + stepMark + " \"$(command -v agent-ls || true)\"; echo " + stepMark + " >&2\n")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = root
	cmd.Env = quickStartEnv(home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the Quick start failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	outs := strings.Split(stdout.String(), stepMark)
	errs := strings.Split(stderr.String(), stepMark+"\n")
	if len(outs) != len(blocks)+1 || len(errs) != len(blocks)+1 {
		t.Fatalf("the Quick start's output does not split into %d steps:\n%s\n%s", len(blocks), stdout.String(), stderr.String())
	}
	res := make([]stepOutput, len(blocks))
	for i := range blocks {
		res[i].stdout, res[i].stderr = outs[i], errs[i]
		if i > 0 {
			// The step's output follows the previous step's found line.
			found, rest, _ := strings.Cut(res[i].stdout, "\n")
			res[i-1].found, res[i].stdout = strings.TrimSpace(found), rest
		}
	}
	found, _, _ := strings.Cut(outs[len(blocks)], "\n")
	res[len(blocks)-1].found = strings.TrimSpace(found)
	return res
}

// quickStartEnv is a newcomer's environment: the private home, no model
// settings and no agent-ls settings of the user running the tests.
func quickStartEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME", strings.HasPrefix(name, "XDG_"), strings.HasPrefix(name, "OPENAI_"),
			strings.HasPrefix(name, "AGENT_LS_"), name == "PREFIX", name == "MAKEFLAGS", name == "MFLAGS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home)
}

// checkQuickStartRequest checks that exec's one request went to the local
// server the README names, over Chat Completions, with its model and the
// prompt.
func checkQuickStartRequest(t *testing.T, m *fakemodel.Server) {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want the exec's one", len(reqs))
	}
	r := reqs[0]
	if !strings.HasSuffix(r.Path, "/chat/completions") {
		t.Errorf("exec asked %s, want Chat Completions (AGENT_LS_WIRE_API=chat)", r.Path)
	}
	var body struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || body.Model != "gpt-oss:20b" {
		t.Errorf("the request's model is %q (%v), want the README's gpt-oss:20b", body.Model, err)
	}
	if !bytes.Contains(r.Body, []byte("list the TODOs in this package")) {
		t.Errorf("the request lacks the README's prompt:\n%s", r.Body)
	}
}

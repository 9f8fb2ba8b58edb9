//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// pluginDir is the Neovim plugin, loaded by the tests as the README's
// set-up without a plugin manager says.
const pluginDir = "../editors/neovim"

// The README's placeholder for the folder agent-ls was cloned to.
const readmePluginPath = "~/src/agent-ls/editors/neovim"

// neovims are the Neovim binaries the plugin is tested in: Debian's
// (0.7.2, installed by make deps) and those scripts/neovim.sh unpacks
// from Debian's later releases, when it has.
func neovims(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{}
	if p, err := exec.LookPath("nvim"); err == nil {
		found["system"] = p
	}
	dir := os.Getenv("AGENT_LS_NEOVIMS")
	if dir == "" {
		dir = filepath.Join("..", ".cache", "neovim")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p, err := filepath.Abs(filepath.Join(dir, e.Name(), "nvim"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); err == nil {
			found[e.Name()] = p
		}
	}
	if len(found) == 0 {
		t.Skip("nvim is not installed (make deps installs it)")
	}
	return found
}

// pluginSnippet is the README's init.lua for the plugin without a plugin
// manager, pointed at this checkout.
func pluginSnippet(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n### Neovim plugin\n")
	if i < 0 {
		t.Fatal("README has no Neovim plugin section")
	}
	s = s[i:]
	for {
		fence := "\n```lua " + runnableMark + "\n"
		start := strings.Index(s, fence)
		if start < 0 {
			t.Fatal("README's Neovim plugin section has no runnable block with runtimepath:append")
		}
		s = s[start+len(fence):]
		end := strings.Index(s, "\n```\n")
		block := s[:end+1]
		if strings.Contains(block, "runtimepath:append") {
			abs, err := filepath.Abs(pluginDir)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(block, readmePluginPath) {
				t.Fatalf("the README's snippet does not load the plugin from %s:\n%s", readmePluginPath, block)
			}
			return strings.ReplaceAll(block, readmePluginPath, abs)
		}
		s = s[end:]
	}
}

// pluginFlow is the model's side of the plugin flow: a first turn that
// streams (held by stream until the editor has shown it), patches the
// buffer, runs a command behind an approval (which must see the patch on
// disk) and answers; a second turn from a code action, which makes a plan
// and runs a command with a long output; a third that hangs
// mid-stream until the user stops it.
func pluginFlow(stream, hold *fakemodel.Gate) []fakemodel.Step {
	first := fakemodel.Answer(fakemodel.Message(fakemodel.Words("I will fix the greeting.")...),
		fakemodel.CustomToolCall("p1", "apply_patch", greetPatch))
	first.Gate = stream
	return []fakemodel.Step{
		first,
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell",
			`{"command":["grep","-c","Grüß dich","greet.js"],"sandbox_permissions":"require_escalated","justification":"check the file on disk"}`)),
		fakemodel.Say(firstAnswer),
		fakemodel.Answer(fakemodel.FunctionCall("u1", "update_plan", `{"explanation":"Two steps.","plan":[{"step":"Read greet","status":"completed"},{"step":"Explain it","status":"in_progress"},{"step":"Sum up","status":"pending"}]}`),
			fakemodel.FunctionCall("c2", "shell", `{"command":["seq","1","40"]}`)),
		fakemodel.Say(secondAnswer),
		{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message(fakemodel.Words("Refactoring this will take a while.")...)}}, Gate: hold},
	}
}

// TestNeovimPlugin runs the plugin in each Neovim through the whole
// flow (testdata/plugin.lua) against the installed agent-ls and the fake
// model.
func TestNeovimPlugin(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			testNeovimPlugin(t, nvim)
		})
	}
}

// TestNeovimPluginUnsavedBuffer: a buffer with unsaved changes of the
// user's gets the agent's edit in the buffer only; the plugin does not
// write it, and the model is told that commands see the saved file. With
// write_agent_edits off, no buffer is written.
func TestNeovimPluginUnsavedBuffer(t *testing.T) {
	for name, nvim := range neovims(t) {
		for _, flow := range []string{"unsaved", "nowrite"} {
			t.Run(name+"/"+flow, func(t *testing.T) {
				testNeovimPluginUnsaved(t, nvim, flow)
			})
		}
	}
}

func testNeovimPluginUnsaved(t *testing.T, nvim, flow string) {
	m := fakemodel.New(fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", greetPatch)), fakemodel.Say(firstAnswer))
	t.Cleanup(m.Close)
	r, ws := startPlugin(t, nvim, m, flow)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r.play(ctx, nil, nil, pluginBad...)
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	// The tool result says that commands see the saved file.
	if !strings.Contains(string(reqs[1].Body), "greet.js has unsaved changes in the editor") {
		t.Errorf("the model was not told about the file:\n%s", reqs[1].Body)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, greetFile)); string(b) != greetBefore {
		t.Errorf("the file was written:\n%s", b)
	}
}

// TestNeovimPluginRewind: a turn patches the open buffer and runs a
// command that changes another file; :AgentRewind takes both back, the
// buffer in one undo step.
func TestNeovimPluginRewind(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New(fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", greetPatch),
				fakemodel.FunctionCall("c1", "shell", `{"command":["sed","-i","s/old/NEW/","other.txt"],"sandbox_permissions":"require_escalated","justification":"change the other file"}`)),
				fakemodel.Say(firstAnswer))
			t.Cleanup(m.Close)
			r, ws := startPlugin(t, nvim, m, "rewind", func(ws string) {
				if err := os.WriteFile(filepath.Join(ws, "other.txt"), []byte("old line\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			if testing.Verbose() {
				t.Logf("editor output:\n%s", r.out.String())
			}
			for file, want := range map[string]string{greetFile: greetBefore, "other.txt": "old line\n"} {
				if b, _ := os.ReadFile(filepath.Join(ws, file)); string(b) != want {
					t.Errorf("%s after the rewind:\n%s", file, b)
				}
			}
		})
	}
}

// TestNeovimPluginEdit: :AgentEdit offers the last turn's prompt (an
// empty answer changes nothing); :AgentEdit 1 with an edited prompt takes
// the turn's patch back and sends the edit in its place, and the model no
// longer sees the old prompt.
func TestNeovimPluginEdit(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New(fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", greetPatch)),
				fakemodel.Say(firstAnswer), fakemodel.Say("Left as it is."))
			t.Cleanup(m.Close)
			r, ws := startPlugin(t, nvim, m, "edit")
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			if b, _ := os.ReadFile(filepath.Join(ws, greetFile)); string(b) != greetBefore {
				t.Errorf("%s after the edit:\n%s", greetFile, b)
			}
			reqs := m.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 3", len(reqs))
			}
			last := string(reqs[2].Body)
			if !strings.Contains(last, "Leave the greeting as it is.") || strings.Contains(last, "Fix the greeting.") {
				t.Errorf("the edited turn's request does not carry the edit alone:\n%s", last)
			}
		})
	}
}

// TestNeovimPluginScratchBuffer: :AgentAsk from a buffer with no file
// starts the server of the current directory's project (on 0.11 and
// later without attaching the buffer) and answers there.
func TestNeovimPluginScratchBuffer(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New(fakemodel.Say(firstAnswer))
			t.Cleanup(m.Close)
			r, _ := startPlugin(t, nvim, m, "scratch")
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			if reqs := m.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Hello from nowhere.") {
				t.Fatalf("the model was not asked: %d requests", len(reqs))
			}
		})
	}
}

// TestNeovimPluginWithoutBinary: with a cmd that is not installed, files
// open without errors, :AgentAsk fails with a message and :checkhealth
// agent-ls names the problem.
func TestNeovimPluginWithoutBinary(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New()
			t.Cleanup(m.Close)
			r, _ := startPlugin(t, nvim, m, "missing")
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			if n := len(m.Requests()); n != 0 {
				t.Fatalf("%d model requests", n)
			}
		})
	}
}

// TestNeovimPluginHealthLocalServer: without an API key and with the
// model server on this machine, :checkhealth agent-ls does not warn that
// the key is not set: such a server needs none.
func TestNeovimPluginHealthLocalServer(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New()
			t.Cleanup(m.Close)
			r, _ := startPluginDriverEnv(t, nvim, "plugin.lua", m, "healthkey", []string{"OPENAI_API_KEY="})
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
		})
	}
}

// pluginBad is what must not appear in Neovim's output.
var pluginBad = []*regexp.Regexp{nvimErrorLine, regexp.MustCompile(`[^\n]* is deprecated[^\n]*`), regexp.MustCompile(`(?m)^E5108: [^\n]*`)}

// startPlugin runs nvim with the README's plugin set-up and the driver
// in flow, in a workspace that is a git repository.
// TestNeovimPluginMention: @ completes the workspace's files (through
// agent/completeMention) in :AgentAsk and in the prompt input, a file
// the prompt @-mentions reaches the model as context, and after the turn
// the statusline function shows the context taken and the rate limits
// of the answer's x-ratelimit-* headers.
func TestNeovimPluginMention(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			answer := fakemodel.Say(firstAnswer)
			answer.Reply.Usage = fakemodel.Usage{InputTokens: 5200, OutputTokens: 300}
			answer.Reply.Header = http.Header{"X-Ratelimit-Remaining-Requests": {"42"}, "X-Ratelimit-Remaining-Tokens": {"15000"}}
			m := fakemodel.New(answer)
			t.Cleanup(m.Close)
			r, _ := startPlugin(t, nvim, m, "mention", func(ws string) {
				if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(ws, "src", "helper.go"), []byte("package helper // mention marker\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			})
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			reqs := m.Requests()
			if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "package helper // mention marker") {
				t.Fatalf("the mentioned file did not reach the model: %d requests", len(reqs))
			}
		})
	}
}

func startPlugin(t *testing.T, nvim string, m *fakemodel.Server, flow string, prepare ...func(ws string)) (*editorRun, string) {
	t.Helper()
	return startPluginDriver(t, nvim, "plugin.lua", m, flow, prepare...)
}

// startPluginDriver is startPlugin with the driver testdata/<driver>.
func startPluginDriver(t *testing.T, nvim, driverName string, m *fakemodel.Server, flow string, prepare ...func(ws string)) (*editorRun, string) {
	t.Helper()
	return startPluginDriverEnv(t, nvim, driverName, m, flow, nil, prepare...)
}

// startPluginDriverEnv is startPluginDriver with more environment
// variables for the editor.
func startPluginDriverEnv(t *testing.T, nvim, driverName string, m *fakemodel.Server, flow string, env []string, prepare ...func(ws string)) (*editorRun, string) {
	t.Helper()
	ws, home := workspace(t)
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range prepare {
		p(ws)
	}
	init := filepath.Join(t.TempDir(), "init.lua")
	if err := os.WriteFile(init, []byte(pluginSnippet(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	driver, err := filepath.Abs(filepath.Join("testdata", driverName))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nvim, "-n", "--headless", "--clean", "-u", init, "-c", "luafile "+driver)
	cmd.Dir = ws
	cmd.Env = append(environment(home, m.URL(), "AGENT_LS_TEST_WS="+ws, "AGENT_LS_TEST_FLOW="+flow), env...)
	return startEditor(t, cmd), ws
}

func testNeovimPlugin(t *testing.T, nvim string) {
	// After the response's first five events and its five words: the
	// message has streamed but not ended.
	stream := fakemodel.NewGate(9)
	// After the third turn's first word.
	hold := fakemodel.NewGate(5)
	t.Cleanup(stream.Release)
	t.Cleanup(hold.Release)
	m := fakemodel.New(pluginFlow(stream, hold)...)
	t.Cleanup(m.Close)

	r, ws := startPlugin(t, nvim, m, "full")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r.play(ctx, nil, []prompt{
		{"the streamed text", regexp.MustCompile(`DRIVER: streamed\n`), func(string) (string, error) {
			stream.Release()
			return "", nil
		}},
	}, pluginBad...)

	if testing.Verbose() {
		t.Logf("editor output:\n%s", r.out.String())
	}
	reqs := m.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	body := func(i int) string { return string(reqs[i].Body) }
	if !strings.Contains(body(0), "Fix this code.") || !strings.Contains(body(0), `return \"Hallo, \" + name`) {
		t.Errorf("the first request lacks the prompt or the selection:\n%s", body(0))
	}
	if !strings.Contains(body(0), `Diagnostics in the selection:\n- line 3: warning: greeting is not German (lint)`) {
		t.Errorf("the first request lacks the selection's diagnostics:\n%s", body(0))
	}
	// grep -c prints 1 and exits 0 only if the plugin wrote the patched
	// buffer before the command ran.
	if !regexp.MustCompile(`Exit code: 0\\nWall time: [0-9.]+ seconds\\nOutput:\\n1"`).MatchString(body(2)) {
		t.Errorf("the command did not see the patched file:\n%s", body(2))
	}
	for _, want := range []string{"Fix this code.", firstAnswer, "Explain what this code does.", "greet.js, lines 2-4:"} {
		if !strings.Contains(body(3), want) {
			t.Errorf("the code action's request lacks %q", want)
		}
	}
	if !strings.Contains(body(5), "Refactor this.") || !strings.Contains(body(5), secondAnswer) {
		t.Errorf("the third turn did not continue the conversation:\n%s", body(5))
	}
	if b, _ := os.ReadFile(filepath.Join(ws, greetFile)); string(b) != greetBefore {
		t.Errorf("after :AgentUndo the file holds:\n%s", b)
	}
}

// TestNeovimPluginHelp: the help file's tags generate with :helptags
// without complaint in each Neovim, every link to one of the plugin's
// tags leads somewhere, and :help finds the commands.
func TestNeovimPluginHelp(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(pluginDir, "doc", "agent-ls.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			plugin := t.TempDir()
			doc := filepath.Join(plugin, "doc")
			if err := os.Mkdir(doc, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(doc, "agent-ls.txt"), src, 0o644); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			cmd := exec.Command(nvim, "-n", "--headless", "--clean",
				"-c", "helptags "+doc, "-c", "set rtp^="+plugin, "-c", "help :AgentAsk",
				"-c", `lua io.stderr:write("OPENED " .. vim.fn.expand("%:t") .. "\n")`, "-c", "qa!")
			cmd.Env = environment(home, "http://127.0.0.1:1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "OPENED agent-ls.txt") || nvimErrorLine.Match(out) {
				t.Fatalf("helptags and :help: %v\n%s", err, out)
			}
			tags, err := os.ReadFile(filepath.Join(doc, "tags"))
			if err != nil {
				t.Fatal(err)
			}
			defined := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(string(tags)), "\n") {
				tag, _, _ := strings.Cut(line, "\t")
				defined[tag] = true
			}
			for _, want := range []string{"agent-ls.txt", "agent-ls.setup()", ":AgentAsk", ":AgentNew", ":AgentStop", ":AgentSessions", ":AgentUndo", ":AgentLog", ":AgentToggle", "agent-ls-approvals", "agent-ls-review", "agent-ls-review-option", "agent-ls-health",
				":AgentSteer", ":AgentQueue", ":AgentResume", ":AgentTerminals", ":AgentKillTerminal", ":AgentStopTerminals", ":AgentPlan", ":AgentApprovePlan",
				"agent-ls-queue", "agent-ls-terminals", "agent-ls-questions", "agent-ls-plan", "agent-ls-attention"} {
				if !defined[want] {
					t.Errorf("no help tag %s", want)
				}
			}
			for _, m := range regexp.MustCompile(`\|((?:agent-ls|:Agent)[^|\s]*)\|`).FindAllStringSubmatch(string(src), -1) {
				if !defined[m[1]] {
					t.Errorf("the link |%s| leads nowhere", m[1])
				}
			}
		})
	}
}

// reviewFile is the file the review flows change: twenty lines, so that
// changes to lines 2 and 19 are two hunks.
const reviewFile = "lines.txt"

// reviewLinesPatch changes lines 2 and 19 of reviewFile.
const reviewLinesPatch = "*** Begin Patch\n*** Update File: lines.txt\n@@\n line 1\n-line 2\n+LINE 2\n line 3\n@@\n line 18\n-line 19\n+LINE 19\n line 20\n*** End Patch\n"

func twentyLines() string {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestNeovimPluginReview: with review = true, a two-hunk change opens
// for review; the keys of the review buffer decide. review: the second
// hunk rejected, the first accepted, a comment, applied; reject, quit,
// close: R and :w, q, :q reject everything; stop: :AgentStop while the
// review is open closes it and ends the turn. The file on disk and what the model is told
// follow the decisions.
func TestNeovimPluginReview(t *testing.T) {
	for name, nvim := range neovims(t) {
		for _, flow := range []string{"review", "review-reject", "review-quit", "review-close", "review-stop"} {
			t.Run(name+"/"+flow, func(t *testing.T) {
				testNeovimPluginReview(t, nvim, flow)
			})
		}
	}
}

func testNeovimPluginReview(t *testing.T, nvim, flow string) {
	m := fakemodel.New(fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", reviewLinesPatch)), fakemodel.Say(firstAnswer))
	t.Cleanup(m.Close)
	r, ws := startPlugin(t, nvim, m, flow, func(ws string) {
		if err := os.WriteFile(filepath.Join(ws, reviewFile), []byte(twentyLines()), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r.play(ctx, nil, nil, pluginBad...)
	if testing.Verbose() {
		t.Logf("editor output:\n%s", r.out.String())
	}
	reqs := m.Requests()
	disk, _ := os.ReadFile(filepath.Join(ws, reviewFile))
	switch flow {
	case "review":
		if want := strings.Replace(twentyLines(), "line 2\n", "LINE 2\n", 1); string(disk) != want {
			t.Errorf("%s on disk:\n%s", reviewFile, disk)
		}
		if len(reqs) != 2 {
			t.Fatalf("%d model requests, want 2", len(reqs))
		}
		for _, want := range []string{
			"accepted only part of it",
			"lines.txt: accepted hunk(s) @@ -1,5 +1,5 @@; rejected hunk(s) @@ -16,5 +16,5 @@ (not applied)",
			"-line 19\\n+LINE 19",
			"The user's comment: keep line 19",
		} {
			if !strings.Contains(string(reqs[1].Body), want) {
				t.Errorf("the model was not told %q:\n%s", want, reqs[1].Body)
			}
		}
	case "review-reject", "review-quit", "review-close":
		if string(disk) != twentyLines() {
			t.Errorf("%s on disk:\n%s", reviewFile, disk)
		}
		if len(reqs) != 2 {
			t.Fatalf("%d model requests, want 2", len(reqs))
		}
		if !strings.Contains(string(reqs[1].Body), "rejected all of it; nothing was changed") {
			t.Errorf("the model was not told of the rejection:\n%s", reqs[1].Body)
		}
	case "review-stop":
		if string(disk) != twentyLines() {
			t.Errorf("%s on disk:\n%s", reviewFile, disk)
		}
		if len(reqs) != 1 {
			t.Fatalf("%d model requests, want 1", len(reqs))
		}
	}
}

// TestNeovimPluginHomeFolder: `nvim ~/notes.txt` run in the home folder
// starts no agent-ls with the home folder as its workspace: the user is
// told why, and a file in a folder of its own below home gets that
// folder.
func TestNeovimPluginHomeFolder(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			m := fakemodel.New()
			t.Cleanup(m.Close)
			ws, home := workspace(t)
			if err := os.MkdirAll(filepath.Join(home, "notes"), 0o755); err != nil {
				t.Fatal(err)
			}
			init := filepath.Join(t.TempDir(), "init.lua")
			if err := os.WriteFile(init, []byte(pluginSnippet(t)), 0o644); err != nil {
				t.Fatal(err)
			}
			driver, err := filepath.Abs(filepath.Join("testdata", "plugin.lua"))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(nvim, "-n", "--headless", "--clean", "-u", init, "-c", "luafile "+driver)
			cmd.Dir = home
			cmd.Env = environment(home, m.URL(), "AGENT_LS_TEST_WS="+ws, "AGENT_LS_TEST_FLOW=home")
			r := startEditor(t, cmd)
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
		})
	}
}

package fakemodel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// startCommand builds and starts the fakemodel command on script, as an
// editor test would, and returns its URL and request log path.
func startCommand(t *testing.T, script string) (url, logPath string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakemodel")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/fakemodel").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	logPath = filepath.Join(dir, "requests.jsonl")
	cmd := exec.Command(bin, "-script", script, "-log", logPath)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("fakemodel exit: %v\n%s", err, stderr.String())
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr: %s)", err, stderr.String())
	}
	url = strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1") {
		t.Fatalf("URL %q", url)
	}
	return url, logPath
}

// The command serves a JSON script to the real model client, over both
// wire APIs, and logs every request.
func TestCommandServesScript(t *testing.T) {
	for _, wire := range []string{model.WireResponses, model.WireChat} {
		t.Run(wire, func(t *testing.T) {
			url, logPath := startCommand(t, filepath.Join("testdata", "script.json"))
			c, err := model.New(model.Config{WireAPI: wire, BaseURL: url, APIKey: "test-key", RetryBaseDelay: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var retries int
			emit := func(e model.Event) {
				if e.Kind == model.Retrying {
					retries++
				}
			}
			prompt := model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: "please fix the test"}
			resp, err := c.Stream(ctx, &model.Request{Model: "gpt-x", Input: []model.Item{prompt}}, emit)
			if err != nil {
				t.Fatal(err)
			}
			var types []model.ItemType
			for _, it := range resp.Output {
				types = append(types, it.Type)
			}
			call := resp.Output[len(resp.Output)-1]
			if call.Type != model.ItemFunctionCall || call.CallID != "call_1" || call.Name != "read_file" || call.Arguments != `{"file_path":"a_test.go"}` {
				t.Errorf("call %+v (output %v)", call, types)
			}
			if retries != 1 {
				t.Errorf("%d retries for the scripted 503", retries)
			}
			if wire == model.WireResponses {
				want := []model.ItemType{model.ItemReasoning, model.ItemMessage, model.ItemFunctionCall}
				if !slices.Equal(types, want) || resp.Output[1].Text != "Reading the test." || resp.Output[0].EncryptedContent != "ENC" {
					t.Errorf("output %+v", resp.Output)
				}
				if resp.Usage.CachedInputTokens != 60 || resp.Usage.ReasoningTokens != 8 {
					t.Errorf("usage %+v", resp.Usage)
				}
			}

			resp, err = c.Stream(ctx, &model.Request{Model: "gpt-x", Input: []model.Item{prompt}}, emit)
			if err != nil {
				t.Fatal(err)
			}
			var patch, text string
			for _, it := range resp.Output {
				switch it.Type {
				case model.ItemCustomToolCall:
					patch = it.Input
				case model.ItemFunctionCall: // Chat carries custom tools as functions
					var a struct{ Input string }
					_ = json.Unmarshal([]byte(it.Arguments), &a)
					patch = a.Input
				case model.ItemMessage:
					text = it.Text
				}
			}
			if patch != "*** Begin Patch\n*** End Patch\n" || text != "Done." {
				t.Errorf("second reply: patch %q, text %q", patch, text)
			}

			// Three requests: the failed one, its retry, the second turn.
			data, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if len(lines) != 3 {
				t.Fatalf("%d logged requests:\n%s", len(lines), data)
			}
			for i, want := range []string{"read", "read", "patch"} {
				var r struct {
					Seq           int
					Path          string
					Step          string
					Authorization string
					Body          map[string]any
				}
				if err := json.Unmarshal([]byte(lines[i]), &r); err != nil {
					t.Fatalf("log line %d: %v", i+1, err)
				}
				if r.Seq != i+1 || r.Step != want || r.Authorization != "Bearer test-key" || r.Body["model"] != "gpt-x" || !strings.HasSuffix(r.Path, map[string]string{model.WireResponses: "/responses", model.WireChat: "/chat/completions"}[wire]) {
					t.Errorf("log line %d: %+v", i+1, r)
				}
			}
		})
	}
}

func TestParseScriptErrors(t *testing.T) {
	for script, want := range map[string]string{
		`{"steps":[{"reply":{"items":[{"type":"message","txt":"x"}]}}]}`:            `unknown field "txt"`,
		`{"steps":[{"reply":{"items":[{"type":"picture"}]}}]}`:                      `step 1: item 1: unknown item type "picture"`,
		`{"steps":[{"failures":[{"mode":"explode"}],"reply":{"items":[]}}]}`:        `unknown failure mode "explode"`,
		`{"steps":[{"failures":[{}],"reply":{"items":[]}}]}`:                        "a failure needs a status or a mode",
		`{"steps":[{"reply":{"items":[{"type":"function_call","arguments":{}}]}}]}`: "a function_call needs a name",
	} {
		if _, err := fakemodel.ParseScript(strings.NewReader(script)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", script, err, want)
		}
	}
}

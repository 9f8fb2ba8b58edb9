package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// `agent-ls mcp list` shows what servers say (tool names, errors,
// stderr): escaped, so a server cannot act on the terminal.
func TestMCPListShowsControlsEscaped(t *testing.T) {
	s := Settings{Resolved: &config.Resolved{}}
	s.MCPServers = map[string]config.MCPServer{"evil": {Command: "sh", Args: []string{"-c", "x\r\x1b[2Kok"}}}
	var out bytes.Buffer
	printMCPList(&out, []mcpListEntry{{
		Name: "evil", State: "failed", Error: "boom\x1b[2J", Tools: []string{"t\u202e"},
		StderrTail: []string{"\x1b]52;c;aGk=\a"},
	}}, s)
	text := out.String()
	if textcut.Visible(text) != text {
		t.Errorf("output carries raw control characters: %q", text)
	}
	for _, want := range []string{`evil: failed (command sh -c $'x\r\x1b[2Kok')`, `error: boom\x1b[2J`, `tools (1): t\u202e`, `    \x1b]52;c;aGk=\a`} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// The terminal's approval question for a change or a tool call escapes
// the file names, the diff, the tool, its server, its arguments and the
// reason: none of them can paint a question of their own.
func TestApprovalQuestionShowsControlsEscaped(t *testing.T) {
	for _, tc := range []struct {
		req  *agent.ApprovalRequest
		want []string
	}{
		{&agent.ApprovalRequest{Kind: agent.ApprovalPatch, Files: []string{"/r/a\u202egpj.go", "/r/b\n? run ls"},
			Diff: "@@ -1 +1 @@\n-x\n+y\x1b[2J\r\n", Reason: "outside\x1b]52;c;aGk=\a"},
			[]string{`? change /r/a\u202egpj.go, /r/b\n? run ls` + "\n", `+y\x1b[2J\r` + "\n", `  outside\x1b]52;c;aGk=\a`}},
		{&agent.ApprovalRequest{Kind: agent.ApprovalTool, Tool: "t\r\x1b[2K", Server: "s\u2066", Arguments: []byte(`{"a":"\u202e"}`)},
			[]string{`? call t\r\x1b[2K (s\u2066)` + "\n", `  with {"a":"\u202e"}`}},
		{&agent.ApprovalRequest{Kind: agent.ApprovalExec, Command: []string{"sh", "-c", "rm -rf ~ \r\x1b[2K? run ls -la"}, Cwd: "/r\n? run ls"},
			[]string{`? run sh -c $'rm -rf ~ \r\x1b[2K? run ls -la'` + "\n", `  in /r\n? run ls` + "\n"}},
	} {
		q := approvalQuestion(tc.req)
		if textcut.Visible(q) != q {
			t.Errorf("question carries raw control characters: %q", q)
		}
		for _, want := range tc.want {
			if !strings.Contains(q, want) {
				t.Errorf("question lacks %q:\n%s", want, q)
			}
		}
	}
}

// Log lines quote the model and servers in their messages and fields;
// slog's text handler writes any value with a control, bidi or invalid
// byte as a Go-quoted string, so a log read on a terminal (`tail -f`,
// serve's stderr) cannot act on it. This keeps it so if the handler
// changes.
func TestLogLinesShowControlsEscaped(t *testing.T) {
	var out bytes.Buffer
	s := Settings{LogLevel: "debug"}
	log, closeLog, err := s.logger(&out)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	hostile := "rm -rf ~ \r\x1b[2K? run ls\x1b]52;c;aGk=\a\u009b2J\u202e\u200b\x7f\xff"
	log.Warn("model said "+hostile, "err", hostile, hostile, 1, "group", map[string]string{"k": hostile})
	line := strings.TrimSuffix(out.String(), "\n")
	if textcut.Visible(line) != line || strings.Count(line, "\n") != 0 {
		t.Errorf("log line carries raw control characters: %q", line)
	}
	if !strings.Contains(line, `\x1b[2K`) || !strings.Contains(line, `\u202e`) {
		t.Errorf("log line does not show the escapes: %q", line)
	}
}

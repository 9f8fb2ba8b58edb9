//go:build linux || darwin

package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

func lspFrame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func pipeNonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	if errno != 0 {
		t.Fatalf("F_GETFL: %v", errno)
	}
	return fl&syscall.O_NONBLOCK != 0
}

// The editor's stdin pipe is its own: agent-ls reads it as an ordinary
// blocking file and never changes its mode, so whoever reads the pipe
// after it, even after a SIGKILL, reads it as it was.
func TestStdinPipeStaysBlocking(t *testing.T) {
	m := fakemodel.New()
	t.Cleanup(m.Close)
	cases := map[string]struct {
		args  []string
		hello string
	}{
		"serve": {[]string{"serve"}, lspFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)},
		"acp":   {[]string{"acp"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			defer pw.Close()
			cmd := exec.Command(binary, c.args...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "XDG_STATE_HOME="+t.TempDir())
			cmd.Stdin = pr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill()
			if _, err := pw.WriteString(c.hello); err != nil {
				t.Fatal(err)
			}
			// The initialize answer is out: agent-ls is reading stdin.
			if _, err := bufio.NewReader(out).ReadString('}'); err != nil {
				t.Fatalf("no answer to initialize: %v", err)
			}
			if pipeNonblocking(t, pr) {
				t.Fatal("agent-ls made its stdin pipe non-blocking while serving")
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if pipeNonblocking(t, pr) {
				t.Fatal("a killed agent-ls left its stdin pipe non-blocking")
			}
			pw.WriteString("after\n")
			buf := make([]byte, 16)
			if n, err := pr.Read(buf); err != nil || string(buf[:n]) != "after\n" {
				t.Fatalf("the next reader of the pipe read %q, %v", buf[:n], err)
			}
		})
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// tsOAuthServer runs the MCP TypeScript SDK's OAuth example server
// (simpleStreamableHttp.js --oauth, from internal/mcp/testdata/npm) on
// loopback and returns its MCP endpoint. Its demo authorization server
// registers clients dynamically and approves at once.
func tsOAuthServer(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the TypeScript SDK's example server cannot run")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "internal", "mcp", "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("%s is missing: run `make mcp-test-servers`", script)
	}
	port := func() int {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}
	mcpPort, authPort := port(), port()
	cmd := exec.Command("node", script, "--oauth")
	cmd.Env = append(os.Environ(), fmt.Sprintf("MCP_PORT=%d", mcpPort), fmt.Sprintf("MCP_AUTH_PORT=%d", authPort))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan struct{}, 2)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				ready <- struct{}{}
			}
		}
	}()
	for range 2 {
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
			t.Fatal("the TypeScript example server did not start within 30s")
		}
	}
	return fmt.Sprintf("http://localhost:%d/mcp", mcpPort)
}

// agentLS runs the binary with env and returns its exit code, stdout and
// stderr.
func agentLS(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return exitCode(cmd.Run()), out.String(), errb.String()
}

// TestMCPLogin: `agent-ls mcp login` against the TypeScript SDK's OAuth
// example: before it the server is needsLogin with the hint, in mcp list
// and on exec's stderr; the login
// prints the authorization URL (stdout is no terminal: no browser is
// opened), takes the browser's redirect on loopback, stores the token
// 0600 in the state folder and checks it; the server is then ready; a
// command server, an unknown one and a browser that never comes are
// refused; logout removes the token and says so.
func TestMCPLogin(t *testing.T) {
	u := tsOAuthServer(t)
	state := t.TempDir()
	cfgEnv := writeConfig(t, fmt.Sprintf("[mcp_servers.ts]\nurl = %q\nstartup_timeout_sec = 30\n\n[mcp_servers.local]\ncommand = \"true\"\n", u))
	env := []string{cfgEnv, "XDG_STATE_HOME=" + state}

	code, out, errs := agentLS(t, env, "mcp", "list")
	if code != 1 || !strings.Contains(out, "ts: needsLogin (url "+u) || !strings.Contains(out, "run `agent-ls mcp login ts`") {
		t.Fatalf("mcp list before the login: exit %d\n%s%s", code, out, errs)
	}

	// A turn goes on without the server, and the user is told what to
	// run; no browser is opened by the turn.
	m := fakemodel.New(fakemodel.Say("done"))
	defer m.Close()
	run := execCmd(t, m, "hello")
	run.Env = append(run.Env, env...)
	var execErr bytes.Buffer
	run.Stderr = &execErr
	if code := exitCode(run.Run()); code != 0 || !strings.Contains(execErr.String(), "agent-ls exec: MCP server ts: ") ||
		!strings.Contains(execErr.String(), "run `agent-ls mcp login ts`") {
		t.Errorf("exec before the login: exit %d, stderr:\n%s", code, execErr.String())
	}

	login := exec.Command(binary, "mcp", "login", "ts")
	login.Env = append(os.Environ(), env...)
	stdout, err := login.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	login.Stderr = &errb
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { login.Process.Kill() })
	defer timer.Stop()
	var printed strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		printed.WriteString(line + "\n")
		if authURL, ok := strings.CutPrefix(strings.TrimSpace(line), "http://"); ok && strings.Contains(authURL, "/authorize?") {
			// The browser: follows the authorization server's redirect
			// to agent-ls's loopback listener.
			resp, err := http.Get("http://" + authURL)
			if err != nil {
				t.Fatalf("browser: %v", err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "agent-ls: authorized") {
				t.Errorf("browser got %s: %s", resp.Status, page)
			}
		}
	}
	if code := exitCode(login.Wait()); code != 0 {
		t.Fatalf("mcp login: exit %d\n%s%s", code, printed.String(), errb.String())
	}
	for _, want := range []string{"Open this URL in a browser", "code_challenge_method=S256", "Logged in to ts (with agent-ls's client registered by the server)", "ts: ready, "} {
		if !strings.Contains(printed.String(), want) {
			t.Errorf("mcp login output lacks %q:\n%s", want, printed.String())
		}
	}
	dir := filepath.Join(state, "agent-ls", "mcp-auth")
	files, _ := filepath.Glob(filepath.Join(dir, "ts-*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %q", files)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("token folder mode %v %v", fi.Mode(), err)
	}

	code, out, errs = agentLS(t, env, "mcp", "list")
	if !strings.Contains(out, "ts: ready (url "+u) || !strings.Contains(out, "greet") {
		t.Errorf("mcp list after the login: exit %d\n%s%s", code, out, errs)
	}

	for _, c := range []struct{ args, want string }{
		{"login local", "is a command (stdio) server"},
		{"login nope", `no MCP server "nope" is configured`},
		{"login ts --timeout 1s", "no answer from the browser within 1s"},
	} {
		code, out, errs := agentLS(t, env, append([]string{"mcp"}, strings.Fields(c.args)...)...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("mcp %s: exit %d, want 1 and %q\n%s%s", c.args, code, c.want, out, errs)
		}
	}

	code, out, _ = agentLS(t, env, "mcp", "logout", "ts")
	if code != 0 || !strings.Contains(out, "Removed the token of ts") {
		t.Errorf("mcp logout: exit %d: %s", code, out)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Errorf("the token file is still there: %v", err)
	}
	code, out, _ = agentLS(t, env, "mcp", "logout", "ts")
	if code != 0 || !strings.Contains(out, "No token is stored for ts.") {
		t.Errorf("a second mcp logout: exit %d: %s", code, out)
	}
}

package mcp

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tsOAuthServer runs the MCP TypeScript SDK's example server
// (simpleStreamableHttp.js --oauth, installed with the reference servers
// in testdata/npm) on loopback: an MCP server that asks for OAuth, and
// its demo authorization server (dynamic registration, PKCE, a consent
// that approves at once). It returns the MCP endpoint's URL. The test
// skips without node.
func tsOAuthServer(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the TypeScript SDK's example server cannot run")
	}
	script, err := filepath.Abs(filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", "examples", "server", "simpleStreamableHttp.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("%s is missing: run `make mcp-test-servers` (or `npm ci` in internal/mcp/%s)", script, npmDir)
	}
	mcpPort, authPort := freePort(t), freePort(t)
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
	listening := make(chan int, 2)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				listening <- 1
			}
		}
	}()
	for range 2 {
		select {
		case <-listening:
		case <-time.After(30 * time.Second):
			t.Fatal("the TypeScript example server did not start within 30s")
		}
	}
	return fmt.Sprintf("http://localhost:%d/mcp", mcpPort)
}

// freePort is a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestOAuthTypeScriptServer: against the TypeScript SDK's own OAuth
// example, the login registers a client dynamically, follows the
// authorization with PKCE and stores the token; a connection with it
// lists and calls the tools; without it the server is needsLogin.
func TestOAuthTypeScriptServer(t *testing.T) {
	u := tsOAuthServer(t)
	dir := t.TempDir()
	cfg := ServerConfig{Name: "ts", URL: u, StartupTimeout: 30 * time.Second}

	set, _, fails := startAuthSet(t, dir, cfg)
	if st := statusOf(t, set, "ts"); st.State != StateNeedsLogin || !strings.Contains(st.Error, "run `agent-ls mcp login ts`") {
		t.Fatalf("before the login: %+v, %q", st, fails.list())
	}

	res, out, err := login(t, cfg, dir, nil)
	if err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	if fi, err := os.Stat(res.File); err != nil || fi.Mode().Perm() != 0o600 || !res.Registered {
		t.Fatalf("token file: %v %v %+v", fi, err, res)
	}
	set, reg, fails := startAuthSet(t, dir, cfg)
	st := statusOf(t, set, "ts")
	if st.State != StateReady || !slices.Contains(st.Tools, "greet") {
		t.Fatalf("after the login: %+v, %q", st, fails.list())
	}
	if r := call(t, reg, nil, "ts__greet", map[string]any{"name": "agent-ls"}); r.Output.Failed || !strings.Contains(r.Output.Text, "agent-ls") {
		t.Errorf("greet: %+v", r.Output)
	}
}

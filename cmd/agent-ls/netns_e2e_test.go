package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// A test that needs a network of its own runs again, as a new process of
// the test binary, inside a user, network and mount namespace made by
// unshare: only loopback, no route anywhere else, and an /etc/hosts of
// the test's.
const (
	// builtBinaryVar names the agent-ls the outer run built, which the
	// inner one uses instead of building its own.
	builtBinaryVar = "AGENT_LS_E2E_BINARY"
	// inNamespaceVar is set in the inner run.
	inNamespaceVar = "AGENT_LS_E2E_IN_NETNS"
)

// inNamespace runs the calling test again inside a namespace with hosts
// as its /etc/hosts and reports the inner run's outcome; it returns
// true in the inner run, where the test goes on.
func inNamespace(t *testing.T, hosts string) bool {
	t.Helper()
	if os.Getenv(inNamespaceVar) != "" {
		return true
	}
	for _, tool := range []string{"unshare", "ip", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("SKIPPING: no " + tool + " to make a network namespace")
		}
	}
	file := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(file, []byte(hosts), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("unshare", "-rnm", "true").Run(); err != nil {
		t.Skip("SKIPPING: cannot make a user and network namespace here: ", err)
	}
	cmd := exec.Command("unshare", "-rnm", "sh", "-c", `ip link set lo up && mount --bind "$1" /etc/hosts && shift && exec "$@"`,
		"sh", file, os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), inNamespaceVar+"=1", builtBinaryVar+"="+binary)
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "--- SKIP"):
		t.Skip("SKIPPING: in the namespace: " + string(out))
	case err != nil || !strings.Contains(string(out), "--- PASS"):
		t.Fatalf("in the namespace: %v\n%s", err, out)
	}
	t.Logf("in the namespace:\n%s", out)
	return false
}

// TestNetworkLocalServicesRefused: in a namespace with no route, a name
// that resolves to 127.0.0.1 (registry.test, through /etc/hosts) and
// the cloud metadata address 169.254.169.254 are refused with the 403
// when nobody can be asked, even when allowed_domains covers them by a
// wildcard or without a port; entries naming the exact host and port
// let them through (the metadata address then fails to connect: there
// is no route).
func TestNetworkLocalServicesRefused(t *testing.T) {
	if !inNamespace(t, "127.0.0.1 localhost\n::1 localhost\n127.0.0.1 registry.test\n") {
		return
	}
	needProxy(t)
	port := strings.TrimPrefix(registry(t), "127.0.0.1:")
	urls := []string{"http://registry.test:" + port + "/pkg", "http://169.254.169.254/latest/meta-data/"}
	for _, c := range []struct {
		allowed string
		want    []string
	}{
		{`"*.test", "registry.test", "*.registry.test:` + port + `", "169.254.169.254"`, []string{
			"network access to registry.test:" + port + " denied", "network access to 169.254.169.254:80 denied", " 403", "Exit code: 0"}},
		{`"registry.test:` + port + `", "169.254.169.254:80"`, []string{"REGISTRY /pkg 200", " 502"}},
	} {
		m := fakemodel.New(fakemodel.Answer(shellCall("c1", append([]string{"curl", "-sS", "-w", " %{http_code}\n"}, urls...)...)), fakemodel.Say("done"))
		cmd := exec.Command(binary, "exec", "--yes", "fetch")
		cmd.Dir = t.TempDir()
		config := "[sandbox_workspace_write]\nnetwork = \"ask\"\nallowed_domains = [" + c.allowed + "]\n"
		cmd.Env = append(os.Environ(), writeConfig(t, config), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		m.Close()
		if err != nil {
			t.Fatalf("exec: %v\n%s\n%s", err, out, stderr.String())
		}
		got := lastOutput(m.Requests()[1].Body)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("allowed_domains = [%s]: the output lacks %q:\n%s\nstderr: %s", c.allowed, w, got, stderr.String())
			}
		}
		if strings.Contains(c.want[0], "denied") && strings.Contains(got, "REGISTRY") {
			t.Errorf("allowed_domains = [%s]: a local service was reached: %s", c.allowed, got)
		}
	}
}

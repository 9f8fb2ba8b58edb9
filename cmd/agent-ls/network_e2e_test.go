package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// TestExecNetworkUnattended: under network = "ask" an unattended exec
// asks nobody: curl through the proxy gets the 403 and agent-ls's stderr
// names the host and allowed_domains; once the user's config allows the
// exact host and port, the same command reaches the server.
func TestExecNetworkUnattended(t *testing.T) {
	if why := sandbox.Probe().Unavailable(); why != "" {
		t.Skip("SKIPPING: no sandbox here: " + why)
	}
	if c := sandbox.Probe(); !c.SessionNetwork {
		t.Skip("SKIPPING: no loopback network for a session here: " + c.SessionNetworkNote)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("SKIPPING: no curl")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "REGISTRY "+r.URL.Path) }))
	defer srv.Close()
	hp := "127.0.0.1:" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	for _, c := range []struct {
		config string
		want   string
	}{
		{"[sandbox_workspace_write]\nnetwork = \"ask\"\n", "403"},
		{"[sandbox_workspace_write]\nnetwork = \"ask\"\nallowed_domains = [\"" + hp + "\"]\n", "REGISTRY /pkg"},
	} {
		m := fakemodel.New(fakemodel.Answer(shellCall("c1", "curl", "-sS", "-w", " %{http_code}", "http://"+hp+"/pkg")), fakemodel.Say("done"))
		cmd := exec.Command(binary, "exec", "--yes", "fetch")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), writeConfig(t, c.config), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		m.Close()
		if err != nil {
			t.Fatalf("exec: %v\n%s\n%s", err, out, stderr.String())
		}
		body := string(m.Requests()[1].Body)
		if !strings.Contains(body, c.want) {
			t.Errorf("config %q: the command's output lacks %q:\n%s\nstderr: %s", c.config, c.want, body, stderr.String())
		}
		if c.want == "403" {
			if !strings.Contains(body, "nobody is asked") {
				t.Errorf("the 403 does not say why: %s", body)
			}
			if !strings.Contains(stderr.String(), hp) || !strings.Contains(stderr.String(), "allowed_domains") {
				t.Errorf("stderr does not name the host and allowed_domains:\n%s", stderr.String())
			}
		}
	}
}

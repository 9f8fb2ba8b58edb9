//go:build unix

package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestNeovimPluginNetwork: a sandboxed curl to a server on this machine
// (the test's) asks in the plugin's picker, naming the host, the port
// and the command; "Allow once" lets it through, and the command gets
// the server's answer.
func TestNeovimPluginNetwork(t *testing.T) {
	for name, nvim := range neovims(t) {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var served []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				served = append(served, r.URL.Path)
				mu.Unlock()
				io.WriteString(w, "REGISTRY "+r.URL.Path)
			}))
			t.Cleanup(srv.Close)
			hp := "127.0.0.1:" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
			m := fakemodel.New(
				fakemodel.Answer(fakemodel.FunctionCall("n1", "shell", `{"command":["curl","-sS","-w"," %{http_code}","http://`+hp+`/pkg"]}`)),
				fakemodel.Say("The registry answered."))
			t.Cleanup(m.Close)
			r, _ := startPluginDriverEnv(t, nvim, "plugin_network.lua", m, "network", []string{"AGENT_LS_TEST_HOST=" + hp})
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r.play(ctx, nil, nil, pluginBad...)
			reqs := m.Requests()
			if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "REGISTRY /pkg 200") {
				t.Fatalf("the command did not reach the server through the proxy: %d requests", len(reqs))
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(served, " ") != "/pkg" {
				t.Errorf("the server served %q", served)
			}
		})
	}
}

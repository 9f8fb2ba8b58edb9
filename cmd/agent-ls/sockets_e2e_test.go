package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// TestExecProjectSocketsFromConfig: a Unix socket made outside the sandbox
// in the project root (a database the user runs there) is out of reach of
// sandboxed commands, also when the project's own config asks for it,
// and reached once the user's config sets allow_project_sockets.
func TestExecProjectSocketsFromConfig(t *testing.T) {
	if why := sandbox.Probe().Unavailable(); why != "" {
		t.Skip("SKIPPING: no sandbox here: " + why)
	}
	if !sandbox.Probe().UnixSockets {
		t.Skip("SKIPPING: Unix sockets stay denied with the network off here")
	}
	project := t.TempDir()
	sock := filepath.Join(project, "db.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if err := os.MkdirAll(filepath.Join(project, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".agent-ls", "config.toml"), []byte("[sandbox_workspace_write]\nallow_project_sockets = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const connect = "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect(sys.argv[1])\n    print('REACHED')\nexcept OSError as e:\n    print('REFUSED', e.errno)\n"
	for _, allow := range []bool{false, true} {
		m := fakemodel.New(fakemodel.Answer(shellCall("c1", "python3", "-c", connect, sock)), fakemodel.Say("done"))
		xdg := writeConfig(t, "[sandbox_workspace_write]\nallow_project_sockets = "+map[bool]string{false: "false", true: "true"}[allow]+"\n")
		cmd := exec.Command(binary, "exec", "connect")
		cmd.Dir = project
		cmd.Env = append(os.Environ(), xdg, "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test")
		out, err := cmd.CombinedOutput()
		m.Close()
		if err != nil {
			t.Fatalf("exec: %v\n%s", err, out)
		}
		body := string(m.Requests()[1].Body)
		reached, refused := strings.Contains(body, `Output:\nREACHED`), strings.Contains(body, `Output:\nREFUSED 1`)
		if reached != allow || refused == allow {
			t.Errorf("allow_project_sockets = %v (the project's file says true): reached %v, refused with EPERM %v\n%s", allow, reached, refused, out)
		}
	}
}

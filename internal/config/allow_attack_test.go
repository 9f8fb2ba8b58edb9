package config

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestAddAllowedDomainRefusesAFileThatIsNoConfig: a config path that is
// a symlink to a file that is no TOML (such as /etc/passwd) is not
// edited: the result would not read back as a config.
func TestAddAllowedDomainRefusesAFileThatIsNoConfig(t *testing.T) {
	dir := t.TempDir()
	passwd := filepath.Join(dir, "passwd")
	text := "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	if err := os.WriteFile(passwd, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.toml")
	if err := os.Symlink(passwd, link); err != nil {
		t.Fatal(err)
	}
	if err := AddAllowedDomain(link, "evil.example"); err == nil {
		t.Error("a file that is no config was edited")
	}
	if got, _ := os.ReadFile(passwd); string(got) != text {
		t.Errorf("the file changed:\n%s", got)
	}
	if _, err := os.Stat(passwd + ".lock"); err == nil {
		t.Error("the lock file was left behind")
	}
}

// allowWriterVar makes the test binary a writer of TestAddAllowedDomainTwoProcesses.
const allowWriterVar = "AGENT_LS_TEST_ALLOW_WRITER"

// TestAddAllowedDomainTwoProcesses: two processes adding entries to one
// config at once lose none of them, and the file stays a config.
func TestAddAllowedDomainTwoProcesses(t *testing.T) {
	const each = 15
	if w := os.Getenv(allowWriterVar); w != "" {
		path := os.Getenv(allowWriterVar + "_PATH")
		for i := range each {
			if err := AddAllowedDomain(path, fmt.Sprintf("h%d-%s.example", i, w)); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("# mine\n[sandbox_workspace_write]\nnetwork = \"ask\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for w := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAddAllowedDomainTwoProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), allowWriterVar+"="+strconv.Itoa(w), allowWriterVar+"_PATH="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("a writer failed: %v", err)
		}
	}
	got, _ := os.ReadFile(path)
	for w := range 2 {
		for i := range each {
			if e := fmt.Sprintf("h%d-%d.example", i, w); !allowedIn(got, e) {
				t.Errorf("%s was lost:\n%s", e, got)
			}
		}
	}
}

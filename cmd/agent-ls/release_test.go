package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReleaseLinuxAMD64 builds the release of linux/amd64 as make
// release does (scripts/release.sh, without the .vsix): the archive is
// named with the version and platform, its binaries are x86-64 and
// linked statically, SHA256SUMS verifies, and the binary reports the
// version, the commit's date and the protocol. The other platforms build
// in make release; only this one runs here.
func TestReleaseLinuxAMD64(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING in -short: builds the release binaries")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("SKIPPING: the release test runs on linux/amd64")
	}
	for _, tool := range []string{"file", "sha256sum", "tar", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIPPING: no %s", tool)
		}
	}
	out := t.TempDir()
	script := exec.Command(filepath.Join("..", "..", "scripts", "release.sh"), out, "v9.9.9-test", "linux/amd64")
	script.Env = append(os.Environ(), "VSIX=0")
	if b, err := script.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, b)
	}
	name := "agent-ls-v9.9.9-test-linux-amd64"
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil || !strings.HasSuffix(string(sums), "  "+name+".tar.gz\n") {
		t.Fatalf("SHA256SUMS: %v\n%s", err, sums)
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = out
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, b)
	}
	x := t.TempDir()
	if b, err := exec.Command("tar", "-xzf", filepath.Join(out, name+".tar.gz"), "-C", x).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, b)
	}
	for _, f := range []string{"agent-ls", "agent-ls-sandbox"} {
		b, err := exec.Command("file", filepath.Join(x, name, f)).Output()
		if err != nil || !strings.Contains(string(b), "x86-64") || !strings.Contains(string(b), "statically linked") {
			t.Errorf("file %s: %v: %s", f, err, b)
		}
	}
	b, err := exec.Command(filepath.Join(x, name, "agent-ls"), "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]string
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	commit, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	if v["version"] != "v9.9.9-test" || v["protocol"] != "1.1" || v["commit"] != strings.TrimSpace(string(commit)) || v["date"] == "" {
		t.Errorf("version --json: %s", b)
	}
}

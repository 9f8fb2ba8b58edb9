package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// raceEnabled is set by race_test.go when the tests run under -race.
var raceEnabled bool

// coverPackages are the packages of the program, main and the
// application it runs, which `go test -cover` instruments.
const coverPackages = "github.com/agent-ls/agent-ls/cmd/agent-ls,github.com/agent-ls/agent-ls/internal/app/..."

// buildBinaries builds agent-ls into dir the way the tests run it, and
// the sandbox helper beside it, as `make build` installs it, so the tests
// run commands the way users do.
//
// agent-ls is built with -race when the tests run under -race, so a race
// in the server fails its end-to-end tests too. Under `go test -cover` it
// is built with coverage of the program (this package and internal/app)
// in the test's counter mode, and
// GOCOVERDIR (inherited by every process the tests start) points at the
// directory the test binary reports from: the testing package merges the
// counters the server processes write there at exit, so the reported
// percentage counts what the end-to-end tests ran.
//
// The helper is built plainly: it only sets up landlock and seccomp and
// execs the command in place, and it holds no package main code.
func buildBinaries(dir string) (string, error) {
	binary := filepath.Join(dir, "agent-ls")
	flags, err := serverBuildFlags(dir)
	if err != nil {
		return "", err
	}
	builds := [][]string{
		append(append([]string{"build"}, flags...), "-o", binary, "."),
		{"build", "-o", filepath.Join(dir, "agent-ls-sandbox"), "../agent-ls-sandbox"},
	}
	for _, args := range builds {
		build := exec.Command("go", args...)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return "", fmt.Errorf("go %v: %w", args, err)
		}
	}
	return binary, nil
}

// serverBuildFlags returns the go build flags of the agent-ls under test
// and, under coverage, sets GOCOVERDIR for the processes the tests start.
func serverBuildFlags(dir string) ([]string, error) {
	var flags []string
	if raceEnabled {
		flags = append(flags, "-race")
	}
	mode := testing.CoverMode()
	if mode == "" {
		return flags, nil
	}
	if !flag.Parsed() {
		flag.Parse()
	}
	coverDir := ""
	if f := flag.Lookup("test.gocoverdir"); f != nil {
		coverDir = f.Value.String()
	}
	if coverDir == "" {
		// No directory to merge into (an old-style profile run): keep the
		// server's counters apart, so it does not warn about GOCOVERDIR.
		coverDir = filepath.Join(dir, "cover")
		if err := os.Mkdir(coverDir, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.Setenv("GOCOVERDIR", coverDir); err != nil {
		return nil, err
	}
	return append(flags, "-cover", "-covermode="+mode, "-coverpkg="+coverPackages), nil
}

// The binary under test carries the build settings of the tests: -race
// under -race, coverage under -cover.
func TestBinaryBuiltLikeTests(t *testing.T) {
	out, err := exec.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	settings := string(out)
	for _, s := range []struct {
		setting string
		want    bool
	}{
		{"\tbuild\t-race=true\n", raceEnabled},
		{"\tbuild\t-cover=true\n", testing.CoverMode() != ""},
	} {
		if got := strings.Contains(settings, s.setting); got != s.want {
			t.Errorf("build setting %q present: %v, want %v\n%s", strings.TrimSpace(s.setting), got, s.want, settings)
		}
	}
}

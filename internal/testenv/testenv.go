// Package testenv is set-up that several packages' tests share. Only test
// files import it.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RunWithPrivateState runs m with $XDG_STATE_HOME and $HOME set to fresh
// temporary directories (see PrivateHome), so the change-set journals and
// transcripts the tests write, and whatever the commands the tests run
// write under the home, stay out of the user's home. It returns m's exit
// code.
func RunWithPrivateState(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agent-ls-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	if err := PrivateHome(filepath.Join(dir, "home")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// PrivateHome makes home (created if missing) this process's $HOME, for
// itself and every process it starts. The commands the tests run are
// often login shells (`bash -lc`): with the user's own home they would
// run the user's start-up files (pyenv, nvm, conda, …), slow and
// different on every machine, and a command a test kills on purpose could
// leave a lock behind in the user's home (pyenv's shim lock makes every
// later login shell wait a minute). The Go caches stay where they are, so
// builds in the tests stay warm.
func PrivateHome(home string) error {
	if err := os.MkdirAll(home, 0o755); err != nil {
		return fmt.Errorf("private home: %w", err)
	}
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH"}
	if out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output(); err == nil {
		values := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		for i, k := range keys {
			if i < len(values) && os.Getenv(k) == "" && values[i] != "" {
				os.Setenv(k, values[i])
			}
		}
	}
	return os.Setenv("HOME", home)
}

package sandbox

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runPlan starts the helper (this test binary) in the runner's form with
// raw as its plan, as a hostile or broken runner could, and files as the
// descriptors the plan names.
func runPlan(t *testing.T, dir string, inNS bool, raw []byte, files ...*os.File) result {
	t.Helper()
	f, err := planFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	form := "--no-namespace"
	if inNS {
		form = "--in-namespace"
	}
	cmd := exec.Command(selfPath(t), "sandbox", form, "--plan", "--", "ignored")
	cmd.Dir, cmd.Env, cmd.ExtraFiles = dir, testEnv(), append([]*os.File{f}, files...)
	return collect(t, cmd)
}

// TestPlanRefusesWhatItCannotTrust: a plan that is cut short, unknown,
// or that would run the command with less than Landlock and seccomp
// fails the helper before the command runs.
func TestPlanRefusesWhatItCannotTrust(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	marker := filepath.Join(cwd, "ran")
	sh := &plan{cwd: cwd, path: "/bin/sh", argv: []string{"sh", "-c", "echo ran > " + marker}}
	full, _ := buildPlan(Policy{Mode: WorkspaceWrite, Cwd: cwd, NoNamespace: true}, sh.argv, testEnv(), nil, false)
	if full.fail != nil {
		t.Fatal(full.fail.msg)
	}
	defer full.close()
	good := full.encode()
	noLandlock := *full
	noLandlock.hasLandlock = false
	noSeccomp := *full
	noSeccomp.seccomp = nil
	badRule := *full
	badRule.landlock.rules = append(badRule.landlock.rules[:len(badRule.landlock.rules):len(badRule.landlock.rules)],
		landlockRule{path: filepath.Join(cwd, "missing"), access: llRead})
	cases := []struct {
		name string
		raw  []byte
		msg  string
	}{
		{"no confinement at all", sh.encode(), "neither Landlock nor seccomp"},
		{"no Landlock", noLandlock.encode(), "neither Landlock nor seccomp"},
		{"no seccomp", noSeccomp.encode(), "neither Landlock nor seccomp"},
		{"cut short", good[:len(good)-3], "truncated record"},
		{"cut in a header", good[:len(good)-len(full.seccomp)-2], "truncated record"},
		{"an unknown record", append(bytes.Clone(good), 'Z', 0, 0, 0, 0), "unknown record"},
		{"a bad seccomp program", append(bytes.Clone(good), 'B', 3, 0, 0, 0, 1, 2, 3), "bad seccomp program"},
		{"a NUL in a path", recordPlan(good, 'C', []byte("/tmp\x00/x")), "NUL byte"},
		{"a missing rule path", badRule.encode(), "landlock: opening " + filepath.Join(cwd, "missing")},
		{"empty", nil, "no command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runPlan(t, cwd, false, c.raw, full.files()...)
			if r.code != ExitSetupFailed || !strings.HasPrefix(r.stderr, helperPrefix) || !strings.Contains(r.stderr, c.msg) {
				t.Errorf("want exit %d and %q...%q\n%v", ExitSetupFailed, helperPrefix, c.msg, r)
			}
			if exists(marker) {
				t.Fatalf("the command ran")
			}
		})
	}
	if r := runPlan(t, cwd, false, good, full.files()...); r.code != 0 || !exists(marker) {
		t.Errorf("the intact plan did not run the command: %v", r)
	}
}

// recordPlan is raw with one more record.
func recordPlan(raw []byte, tag byte, payload []byte) []byte {
	out := append(bytes.Clone(raw), tag)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(payload)))
	return append(out, payload...)
}

// TestPlanFailure: a start-up failure worked out by the runner is
// reported by the helper as its own, with its exit code.
func TestPlanFailure(t *testing.T) {
	cwd, _ := workspace(t)
	r := runPlan(t, cwd, false, failPlan(ExitNotFound, ErrNotFound).encode())
	if r.code != ExitNotFound || r.stderr != helperPrefix+ErrNotFound.Error()+"\n" {
		t.Errorf("failure plan: %v", r)
	}
}

// TestLandlockPlanByABI: every ABI gets the rights it knows and no more,
// refer only from ABI 2 on, and the network switch moves the network and
// Unix-socket rights out of the handled set.
func TestLandlockPlanByABI(t *testing.T) {
	for abi := 1; abi <= len(landlockABIs)+1; abi++ {
		rs, err := landlockPlan(abi, []string{"/w"}, false)
		if err != nil {
			t.Fatal(err)
		}
		have := abiRights(abi)
		if rs.handledFS != have.fs || rs.handledNet != have.net || rs.scoped != have.scoped {
			t.Errorf("ABI %d: handled %x/%x/%x, want %x/%x/%x", abi, rs.handledFS, rs.handledNet, rs.scoped, have.fs, have.net, have.scoped)
		}
		for _, r := range rs.rules {
			if r.access&^rs.handledFS != 0 || r.access == 0 {
				t.Errorf("ABI %d: rule %s has rights %x outside the handled %x", abi, r.path, r.access, rs.handledFS)
			}
			if r.path == "/w" && (r.access&(1<<13) != 0) != (abi >= 2) {
				t.Errorf("ABI %d: refer on the writable root: %x", abi, r.access)
			}
			if r.path == "/" && r.access != llRead {
				t.Errorf("ABI %d: / gets %x, want read only", abi, r.access)
			}
		}
		on, _ := landlockPlan(abi, []string{"/w"}, true)
		if on.handledNet != 0 || on.handledFS&(1<<16) != 0 || on.scoped&1 != 0 || on.scoped != have.scoped&^1 {
			t.Errorf("ABI %d with network: handled %x/%x/%x", abi, on.handledFS, on.handledNet, on.scoped)
		}
	}
}

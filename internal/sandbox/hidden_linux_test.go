package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-ls/agent-ls/internal/policy"
)

func init() {
	attacks["read"] = func(a []string) error {
		b, err := os.ReadFile(a[0])
		if err != nil {
			return err
		}
		fmt.Printf("read: %s\n", b)
		return nil
	}
	attacks["find"] = func(a []string) error {
		// Look for any file in the folder, by listing it.
		entries, err := os.ReadDir(a[0])
		if err != nil {
			return err
		}
		for _, e := range entries {
			fmt.Printf("found: %s\n", e.Name())
		}
		if len(entries) == 0 {
			return errors.New("the folder looks empty")
		}
		return nil
	}
	attacks["umount-read"] = func(a []string) error {
		// Take the cover away, then read.
		if err := unix.Unmount(filepath.Dir(a[0]), unix.MNT_DETACH); err != nil {
			return err
		}
		return attacks["read"](a)
	}
}

// TestHiddenTokens: a sandboxed command cannot read the OAuth tokens of
// MCP servers (Policy.Hidden, agent-ls's mcp-auth folder): not by their
// path, not by listing their folder, whether the workspace is the home
// folder, another project, or the sandbox is read-only; nor can it write
// there. Without Hidden the same command reads the file, so the attack
// is real; and the file stays as it was outside.
func TestHiddenTokens(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	h := newFakeHome(t)
	dir := filepath.Join(h.state, "mcp-auth")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	token := filepath.Join(dir, "remote-0123456789abcdef-fedcba9876543210.json")
	const secret = `{"token":{"access_token":"at-SECRET","refresh_token":"rt-SECRET"}}`
	if err := os.WriteFile(token, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	project, _ := workspace(t)
	own := []string{h.cfg, h.state, h.hook}
	for _, c := range []struct {
		name string
		p    Policy
	}{
		{"workspace at home", Policy{Mode: WorkspaceWrite, Cwd: h.home, Own: own, Hidden: []string{dir}}},
		{"another project", Policy{Mode: WorkspaceWrite, Cwd: project, Own: own, Hidden: []string{dir}}},
		{"read-only", Policy{Mode: ReadOnly, Cwd: project, Own: own, Hidden: []string{dir}}},
	} {
		p := c.p
		t.Run(c.name, func(t *testing.T) {
			for _, r := range []result{
				attackVia(t, p, h.helper, "read", token),
				attackVia(t, p, h.helper, "find", dir),
				attackVia(t, p, h.helper, "umount-read", token),
				attackVia(t, p, h.helper, "write", filepath.Join(dir, "forged.json")),
			} {
				if strings.Contains(r.stdout+r.stderr, "SECRET") || strings.Contains(r.stdout, "found:") {
					t.Errorf("ESCAPE: the command saw the tokens\n%v", r)
				}
				mustBlock(t, r, "reach the token folder")
			}
			// Without it hidden, the very same read gets the token: the
			// attack is real.
			open := p
			open.Hidden = nil
			r := attackVia(t, open, h.helper, "read", token)
			mustWork(t, r, "reading the token folder when it is not hidden")
			if !strings.Contains(r.stdout, "at-SECRET") {
				t.Errorf("the unhidden read did not get the token: %v", r)
			}
		})
	}
	if ex := Explain(Policy{Mode: WorkspaceWrite, Cwd: project, Hidden: []string{dir}}, Probe()); !strings.Contains(ex, "but "+dir+", hidden") {
		t.Errorf("--explain does not name the hidden folder:\n%s", ex)
	}
	if b, err := os.ReadFile(token); err != nil || string(b) != secret {
		t.Errorf("the token file outside the sandbox: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "forged.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ESCAPE: a file was written in the token folder: %v", err)
	}
}

// TestHiddenMissingFolder: a hidden folder that does not exist yet is
// made (0700) and covered, so a token stored while a command runs is not
// readable by it.
func TestHiddenMissingFolder(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	h := newFakeHome(t)
	dir := filepath.Join(h.state, "mcp-auth")
	project, _ := workspace(t)
	p := Policy{Mode: WorkspaceWrite, Cwd: project, Own: []string{h.cfg, h.state}, Hidden: []string{dir}}
	r := attackVia(t, p, h.helper, "find", dir)
	mustBlock(t, r, "list the token folder")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the token folder was not made 0700: %v %v", fi, err)
	}
}

// TestPolicyForHidden: the boundary's hidden own paths reach the policy.
func TestPolicyForHidden(t *testing.T) {
	root := t.TempDir()
	b, err := policy.NewBoundary(WorkspaceWrite, root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(root, "state", "mcp-auth")
	b = b.WithOwn([]policy.OwnPath{{Path: filepath.Join(root, "state")}, {Path: hidden, Hidden: true}})
	p := PolicyFor(b, root, false)
	if len(p.Hidden) != 1 || p.Hidden[0] != hidden || len(p.Own) != 2 {
		t.Errorf("policy %+v", p)
	}
}

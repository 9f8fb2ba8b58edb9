package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkSandboxTrue: the wall time of `true` run plainly, through the
// runner and helper (workspace-write, with namespaces, with the protected
// paths present or missing, in a session's loopback network, and
// Landlock+seccomp only), and through bubblewrap. Besides ns/op (a mean) each reports its median in ms.
// bench/sandbox.sh prints the same comparison as ratios.
func BenchmarkSandboxTrue(b *testing.B) {
	requireLandlock(b)
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true")
	}
	bare := b.TempDir()
	present := b.TempDir()
	for _, n := range ProtectedNames {
		if err := os.Mkdir(filepath.Join(present, n), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	// One session's registry: its commands join the session's loopback
	// network (made at the first, before the timing starts).
	session := new(SocketRegistry)
	b.Cleanup(func() { session.Close() })
	sandboxedIn := func(cwd string, noNS bool, reg *SocketRegistry) func() error {
		return func() error {
			c, err := Command(context.Background(), Policy{Cwd: cwd, NoNamespace: noNS, Sockets: reg}, []string{"true"}, testEnv(), selfPath(b))
			if err != nil {
				return err
			}
			return c.Run()
		}
	}
	sandboxed := func(cwd string, noNS bool) func() error { return sandboxedIn(cwd, noNS, nil) }
	if err := sandboxedIn(bare, false, session)(); err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		name string
		run  func() error
	}{
		{"plain", func() error { return exec.Command(truePath).Run() }},
		{"helper-namespace-protected-paths-present", sandboxed(present, false)},
		{"helper-namespace-protected-paths-missing", sandboxed(bare, false)},
		{"helper-namespace-session-loopback", sandboxedIn(bare, false, session)},
		{"helper-landlock-seccomp-only", sandboxed(bare, true)},
	}
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		cases = append(cases, struct {
			name string
			run  func() error
		}{"bwrap", func() error {
			// Comparable: read-only root, writable workspace, no network.
			return exec.Command(bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--bind", bare, bare, "--unshare-net", truePath).Run()
		}})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.name != "plain" && c.name != "bwrap" && !Probe().Namespaces && c.name != "helper-landlock-seccomp-only" {
				b.Skip("no user namespaces")
			}
			times := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2])/float64(time.Millisecond), "median-ms")
		})
	}
}

// BenchmarkProbeNamespaces: one namespace probe, as the first session of
// each agent-ls process asks it (a child sharing this process's memory).
func BenchmarkProbeNamespaces(b *testing.B) {
	if !Probe().Namespaces {
		b.Skip("no namespaces here: " + Probe().NamespaceNote)
	}
	for b.Loop() {
		if _, err := probeNamespaces(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionNet: making a session's loopback network (its user and
// network namespaces, lo up), as the first command of each session does,
// and releasing it.
func BenchmarkSessionNet(b *testing.B) {
	if c := Probe(); !c.SessionNetwork {
		b.Skip("no session network here: " + c.SessionNetworkNote)
	}
	for b.Loop() {
		n, err := newSessionNet()
		if err != nil {
			b.Fatal(err)
		}
		n.close()
	}
}

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/proctest"
)

func marker(*testing.T) string { return proctest.Marker() }

func withMarker(m string) []int { return proctest.Find(m) }

func noSurvivors(t *testing.T, m string) { t.Helper(); proctest.Gone(t, m) }

// lingering returns a shell snippet that leaves a `sleep 1000` named m
// behind in the given way.
func lingering(how, m string) string {
	sleep := `exec -a ` + m + ` sleep 1000`
	switch how {
	case "setsid daemon holding stdout":
		return `setsid bash -c '` + sleep + `' &`
	case "setsid daemon with its fds closed":
		return `setsid bash -c '` + sleep + `' </dev/null >/dev/null 2>&1 &`
	case "double fork":
		return `( ( bash -c '` + sleep + `' ) & ) ;`
	case "background child":
		return `bash -c '` + sleep + `' &`
	}
	panic(how)
}

var lingerWays = []string{"setsid daemon holding stdout", "setsid daemon with its fds closed", "double fork", "background child"}

// TestNoSurvivorsAfterExit: when the command exits, whatever it left
// running ends, and Wait returns on the command's own exit even though a
// daemon held its stdout.
func TestNoSurvivorsAfterExit(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			for _, how := range lingerWays {
				t.Run(how, func(t *testing.T) {
					mk := marker(t)
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					c, err := Command(ctx, Policy{Cwd: cwd}, []string{"bash", "-c", lingering(how, mk) + " echo hi; exit 3"}, testEnv(), selfPath(t))
					if err != nil {
						t.Fatal(err)
					}
					// Far beyond the test's deadline: Wait must not need it.
					c.WaitDelay = time.Hour
					var out strings.Builder
					c.Stdout = &out
					err = c.Run()
					var ee *exec.ExitError
					if !errors.As(err, &ee) || ee.ExitCode() != 3 || ctx.Err() != nil {
						t.Errorf("want the command's own exit 3, got %v (ctx %v)", err, ctx.Err())
					}
					if strings.TrimSpace(out.String()) != "hi" {
						t.Errorf("stdout %q", out.String())
					}
					noSurvivors(t, mk)
				})
			}
		})
	}
}

// TestNoSurvivorsAfterTimeoutOrCancel: a timeout or a cancel ends the
// command and everything it started.
func TestNoSurvivorsAfterTimeoutOrCancel(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			for _, variant := range []string{"timeout", "cancel"} {
				t.Run(variant, func(t *testing.T) {
					mk := marker(t)
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					if variant == "timeout" {
						ctx, cancel = context.WithTimeout(ctx, 3*time.Second)
						defer cancel()
					}
					script := lingering("setsid daemon holding stdout", mk) + lingering("double fork", mk) + " echo started; exec -a " + mk + " sleep 1000"
					c, err := Command(ctx, Policy{Cwd: cwd}, []string{"bash", "-c", script}, testEnv(), selfPath(t))
					if err != nil {
						t.Fatal(err)
					}
					c.WaitDelay = time.Hour
					stdout, _ := c.StdoutPipe()
					if err := c.Start(); err != nil {
						t.Fatal(err)
					}
					line, _ := bufio.NewReader(stdout).ReadString('\n')
					if line != "started\n" {
						// Only a cancel waits for it; the timeout may strike first.
						if variant == "cancel" {
							t.Errorf("first line %q", line)
						} else {
							t.Logf("the timeout struck before the command said it started")
						}
					}
					if variant == "cancel" {
						cancel()
					}
					done := make(chan error, 1)
					go func() { done <- c.Wait() }()
					select {
					case <-done:
					case <-time.After(time.Minute):
						t.Fatal("Wait did not return after the " + variant)
					}
					noSurvivors(t, mk)
					if exists(filepath.Join(cwd, ".git")) {
						t.Error("placeholder left behind")
					}
				})
			}
		})
	}
}

// TestNoSurvivorsWhenTheAgentIsKilled: kill -9 of the process running the
// command (here the test binary as the agent) takes the command and its
// daemons down.
func TestNoSurvivorsWhenTheAgentIsKilled(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			mk := marker(t)
			script := lingering("setsid daemon with its fds closed", mk) + lingering("double fork", mk) + " echo started; exec -a " + mk + " sleep 1000"
			agent := exec.Command(selfPath(t), "attack", "as-runner", cwd, "bash", "-c", script)
			agent.Env = testEnv()
			if m.noNS {
				agent.Env = append(agent.Env, NoNamespaceEnv+"=1")
			}
			stdout, _ := agent.StdoutPipe()
			agent.Stderr = os.Stderr
			if err := agent.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stdout)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("the agent ended before the command started: %v", err)
				}
				if line == "started\n" {
					break
				}
			}
			if len(withMarker(mk)) < 2 {
				t.Errorf("expected the lingering processes to run, found %v", withMarker(mk))
			}
			agent.Process.Kill()
			agent.Wait()
			noSurvivors(t, mk)
		})
	}
}

// TestSignalsReachTheCommand: SIGINT, SIGHUP and SIGQUIT sent to the
// helper reach the command (PID 1 of a namespace would otherwise drop
// them); SIGTERM ends it all.
func TestSignalsReachTheCommand(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGTERM} {
				t.Run(sig.String(), func(t *testing.T) {
					script := `trap 'echo got-` + strconv.Itoa(int(sig)) + `; exit 7' ` + strconv.Itoa(int(sig)) + `; echo ready; while :; do sleep 0.05; done`
					c, err := Command(context.Background(), Policy{Cwd: cwd}, []string{"bash", "-c", script}, testEnv(), selfPath(t))
					if err != nil {
						t.Fatal(err)
					}
					stdout, _ := c.StdoutPipe()
					if err := c.Start(); err != nil {
						t.Fatal(err)
					}
					r := bufio.NewReader(stdout)
					if line, _ := r.ReadString('\n'); line != "ready\n" {
						t.Fatalf("first line %q", line)
					}
					c.Process.Signal(sig)
					rest, _ := r.ReadString('\n')
					err = c.Wait()
					code := exitCodeOf(err)
					if sig == syscall.SIGTERM {
						if code == 7 {
							t.Errorf("SIGTERM to the helper should end everything, not be trapped: %q", rest)
						}
						return
					}
					if code != 7 || rest != "got-"+strconv.Itoa(int(sig))+"\n" {
						t.Errorf("signal not passed on: exit %d, output %q", code, rest)
					}
				})
			}
		})
	}
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestExplainSaysHowProcessesEnd: --explain names the mechanism in force.
func TestExplainSaysHowProcessesEnd(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	r := helperCLI(t, cwd, testEnv(), "--explain", "--cwd", cwd)
	want := "a child subreaper"
	if Probe().PIDNamespace {
		want = "PID 1 of a PID namespace of its own"
	}
	if !strings.Contains(r.stdout, want) {
		t.Errorf("--explain lacks %q:\n%s", want, r.stdout)
	}
	r = helperCLI(t, cwd, testEnv(NoNamespaceEnv+"=1"), "--explain", "--cwd", cwd)
	if !strings.Contains(r.stdout, "a child subreaper") {
		t.Errorf("--explain without namespaces lacks the subreaper:\n%s", r.stdout)
	}
}

// TestNoSurvivorsUnsandboxed: a danger-full-access command runs unconfined
// through the helper, whose subreaper still ends what it leaves running.
func TestNoSurvivorsUnsandboxed(t *testing.T) {
	_, outside := workspace(t)
	for _, how := range lingerWays {
		t.Run(how, func(t *testing.T) {
			mk := marker(t)
			c, err := Command(context.Background(), Policy{Mode: DangerFullAccess, Cwd: outside}, []string{"bash", "-c", lingering(how, mk) + " echo free > f; echo $0"}, testEnv(), selfPath(t))
			if err != nil {
				t.Fatal(err)
			}
			c.WaitDelay = time.Hour
			out, err := c.Output()
			if err != nil || strings.TrimSpace(string(out)) != "bash" {
				t.Errorf("unsandboxed run: %v, stdout %q", err, out)
			}
			if !exists(filepath.Join(outside, "f")) {
				t.Error("danger-full-access could not write")
			}
			noSurvivors(t, mk)
		})
	}
}

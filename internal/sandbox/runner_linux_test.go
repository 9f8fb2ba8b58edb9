package sandbox

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestLikelyDenied(t *testing.T) {
	cases := []struct {
		code           int
		stdout, stderr string
		sandboxed      bool
		want           bool
	}{
		{0, "", "permission denied", true, false},
		{1, "", "touch: cannot touch '/etc/x': Permission denied", false, false},
		{1, "", "touch: cannot touch '/etc/x': Permission denied", true, true},
		{1, "", "sh: 1: cannot create .git/x: Read-only file system", true, true},
		{1, "dial tcp: socket: operation not permitted", "", true, true},
		{1, "", "compile error", true, false},
		{2, "", "usage: foo", true, false},
		{127, "", "sh: 1: nope: not found", true, false},
		{128 + int(syscall.SIGSYS), "", "", true, true},
		{ExitNotFound, "", helperPrefix + "nope: command not found\n", true, false},
		{ExitNotExecutable, "", helperPrefix + "./x: permission denied (not executable)\n", true, false},
		{ExitSetupFailed, "", helperPrefix + "landlock: something\n", true, true},
	}
	for _, c := range cases {
		if got := LikelyDenied(c.code, []byte(c.stdout), []byte(c.stderr), c.sandboxed); got != c.want {
			t.Errorf("LikelyDenied(%d, %q, %q, %v) = %v, want %v", c.code, c.stdout, c.stderr, c.sandboxed, got, c.want)
		}
	}
}

// helperCLI runs `TESTBINARY sandbox ARGS...` as a person would.
func helperCLI(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(selfPath(t), append([]string{"sandbox"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	return collect(t, cmd)
}

// collect runs cmd and returns its output and exit code; a command that
// could not run at all fails the test.
func collect(t testing.TB, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHelperErrors(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	notExec := filepath.Join(cwd, "script")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badInterp := filepath.Join(cwd, "bad-interp")
	if err := os.WriteFile(badInterp, []byte("#!/nonexistent/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no command", []string{"--cwd", cwd}, ExitSetupFailed, "no command given"},
		{"bad mode", []string{"--mode", "yolo", "--", "true"}, ExitSetupFailed, "unknown --mode"},
		{"bad flag", []string{"--frobnicate", "--", "true"}, ExitSetupFailed, "flag provided but not defined"},
		{"writable in read-only", []string{"--mode", "read-only", "--writable", cwd, "--", "true"}, ExitSetupFailed, "--writable needs"},
		{"not found", []string{"--cwd", cwd, "--", "no-such-command-anywhere"}, ExitNotFound, "command not found"},
		{"not found by path", []string{"--cwd", cwd, "--", "./missing"}, ExitNotFound, "no such file"},
		{"not executable", []string{"--cwd", cwd, "--", "./script"}, ExitNotExecutable, "not executable"},
		{"a directory", []string{"--cwd", cwd, "--", "/etc"}, ExitNotExecutable, "is a directory"},
		{"missing interpreter", []string{"--cwd", cwd, "--", "./bad-interp"}, ExitNotFound, "missing interpreter"},
		{"runner flag out of place", []string{"--cwd", cwd, "--in-namespace", "--", "true"}, ExitSetupFailed, "flag provided but not defined"},
		{"runner's form without a plan", []string{"--no-namespace", "--plan", "--", "true"}, ExitSetupFailed, "reading the plan from descriptor 3: bad file descriptor"},
		{"runner's form in namespaces without a plan", []string{"--in-namespace", "--plan", "--", "true"}, ExitSetupFailed, "reading the plan from descriptor 3: bad file descriptor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := helperCLI(t, cwd, testEnv(), c.args...)
			if r.code != c.code || !strings.HasPrefix(r.stderr, helperPrefix) || !strings.Contains(r.stderr, c.msg) {
				t.Errorf("want exit %d and %q%q...\n%v", c.code, helperPrefix, c.msg, r)
			}
		})
	}
	if r := helperCLI(t, cwd, testEnv(), "--help"); r.code != 0 || !strings.Contains(r.stdout, "Usage: agent-ls sandbox") {
		t.Errorf("--help:\n%v", r)
	}
}

func TestRefusesWithoutLandlock(t *testing.T) {
	_, err := landlockPlan(0, nil, false)
	if err == nil || !strings.Contains(err.Error(), "refusing to run the command unconfined") {
		t.Fatalf("landlockPlan without Landlock = %v", err)
	}
}

func TestExplainAndSummary(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	r := helperCLI(t, cwd, testEnv(), "--explain", "--cwd", cwd)
	for _, want := range []string{"landlock: ABI " + strconv.Itoa(LandlockABI()), "writable: " + cwd, "network: off", "no capabilities"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--explain lacks %q:\n%s", want, r.stdout)
		}
	}
	if Probe().Namespaces && !strings.Contains(r.stdout, filepath.Join(cwd, ".git")+" (missing") {
		t.Errorf("--explain does not list the missing .git:\n%s", r.stdout)
	}
	r = helperCLI(t, cwd, testEnv(NoNamespaceEnv+"=1"), "--explain", "--cwd", cwd)
	if !strings.Contains(r.stdout, "protected paths: NOT enforced") || !strings.Contains(r.stdout, "disabled by "+NoNamespaceEnv) {
		t.Errorf("--explain with namespaces off:\n%s", r.stdout)
	}
	r = helperCLI(t, cwd, testEnv(), "--explain", "--mode", "read-only", "--network")
	if !strings.Contains(r.stdout, "writable: nothing but /dev/null") || !strings.Contains(r.stdout, "network: on") {
		t.Errorf("--explain read-only:\n%s", r.stdout)
	}
	s := Probe().Summary()
	if !strings.Contains(s, "Landlock ABI") || strings.Contains(s, "\n") {
		t.Errorf("summary: %q", s)
	}
	t.Setenv(NoNamespaceEnv, "1")
	if s := Probe().Summary(); !strings.Contains(s, "NOT protected") {
		t.Errorf("summary with namespaces off: %q", s)
	}
}

// TestCLIWrapper: a direct `agent-ls sandbox` still protects .git.
func TestCLIWrapper(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	git(t, cwd, "init", "-q")
	r := helperCLI(t, cwd, testEnv(), "--", "sh", "-c", "echo ok > file && echo pwned > .git/config")
	if r.code == 0 || !strings.Contains(r.stderr, "Read-only file system") || !exists(filepath.Join(cwd, "file")) {
		t.Errorf("CLI run:\n%v", r)
	}
	if r := helperCLI(t, cwd, testEnv(), "--", "sh", "-c", "exit 7"); r.code != 7 {
		t.Errorf("exit status not passed through: %v", r)
	}
}

func TestCommandArgs(t *testing.T) {
	p := Policy{Mode: WorkspaceWrite, Root: "/w", Cwd: "/w/sub", WritableRoots: []string{"extra", "/abs"}, Network: true, NoNamespace: true}
	c, err := Command(context.Background(), p, []string{"ls", "-l"}, []string{"PATH=/bin"}, "/usr/bin/agent-ls")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/agent-ls", "sandbox", "--no-namespace", "--plan", "--", "ls", "-l"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n got %q\nwant %q", c.Args, want)
	}
	if !c.SysProcAttr.Setsid || c.Dir != "/w/sub" || c.Cancel == nil {
		t.Errorf("Setsid %v, Dir %q, Cancel set %v", c.SysProcAttr.Setsid, c.Dir, c.Cancel != nil)
	}
	for _, bad := range []Policy{{Mode: "yolo", Cwd: "/w"}, {Cwd: "relative"}, {Cwd: "/w", Root: "rel"}} {
		if _, err := Command(context.Background(), bad, []string{"ls"}, nil, "/x"); err == nil {
			t.Errorf("Command(%+v) accepted", bad)
		}
	}
	if _, err := Command(context.Background(), p, nil, nil, "/x"); err == nil {
		t.Error("empty argv accepted")
	}
}

func TestDangerFullAccess(t *testing.T) {
	_, outside := workspace(t)
	p := Policy{Mode: DangerFullAccess, Cwd: outside}
	c, err := Command(context.Background(), p, []string{"sh", "-c", "echo free > f"}, []string{"PATH=/usr/bin:/bin"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Args[0] != "sh" || c.Path == "sh" {
		t.Errorf("Args[0] %q, Path %q", c.Args[0], c.Path)
	}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !exists(filepath.Join(outside, "f")) {
		t.Error("danger-full-access could not write")
	}
	if _, err := Command(context.Background(), p, []string{"no-such-command-anywhere"}, []string{"PATH=/usr/bin:/bin"}, ""); err == nil {
		t.Error("missing command accepted")
	}
}

// TestKillGroup: cancelling the context kills the command and what it
// started in the background.
func TestKillGroup(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	mk := marker(t)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Command(ctx, Policy{Cwd: cwd}, []string{"bash", "-c", "bash -c 'exec -a " + mk + " sleep 60' & echo started; wait"}, testEnv(), selfPath(t))
	if err != nil {
		t.Fatal(err)
	}
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "started\n" {
		t.Fatalf("first line %q", line)
	}
	cancel()
	c.Wait()
	noSurvivors(t, mk)
	if err := KillGroup(c); err != nil {
		t.Errorf("KillGroup after exit: %v", err)
	}
}

// TestPlaceholders: a missing .git is masked while any command needs it,
// git and go see "no repository", and the tree is clean afterwards.
func TestPlaceholders(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	p := Policy{Cwd: cwd}
	first, err := Command(context.Background(), p, []string{"sleep", "1"}, testEnv(), selfPath(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	r := runIn(t, p, nil, "sh", "-c", "ls -la .git; git status; test -c .git && echo dev-null")
	if !strings.Contains(r.stdout, "dev-null") || !strings.Contains(r.stderr, "not a git repository") {
		t.Errorf("inside, .git should be a read-only /dev/null that git ignores:\n%v", r)
	}
	if fi, err := os.Lstat(filepath.Join(cwd, ".git")); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("while a command runs, the host should see a socket placeholder: %v %v", fi, err)
	}
	if out, err := exec.Command("git", "-C", cwd, "status").CombinedOutput(); !strings.Contains(string(out), "not a git repository") {
		t.Errorf("host git with the placeholder present: %v %s", err, out)
	}
	first.Wait()
	for _, n := range ProtectedNames {
		if exists(filepath.Join(cwd, n)) {
			t.Errorf("%s left behind", n)
		}
	}
	// A leftover from a crashed process is recognised and removed.
	if _, err := createPlaceholder(filepath.Join(cwd, ".git")); err != nil {
		t.Fatal(err)
	}
	if _, err := createPlaceholder(filepath.Join(cwd, ".agents")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(cwd, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RemovePlaceholders(p); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(cwd, ".git")) || exists(filepath.Join(cwd, ".agents")) {
		t.Error("leftover placeholders not removed")
	}
	if !exists(filepath.Join(cwd, ".agent-ls")) {
		t.Error("RemovePlaceholders deleted the user's own .agent-ls")
	}
}

// TestUnprivilegedUser runs the agent side as nobody: the user namespace
// then maps an ordinary uid and the helper mounts through an ambient
// CAP_SYS_ADMIN that it drops before the command runs.
func TestUnprivilegedUser(t *testing.T) {
	requireLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	const nobody = 65534
	dir, err := os.MkdirTemp(outsideBase(t), "unpriv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "agent")
	data, err := os.ReadFile(selfPath(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(dir, "ws")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, cwd, "init", "-q")
	if err := filepath.Walk(cwd, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}); err != nil {
		t.Fatal(err)
	}
	// The placeholder lock directory of a user without /run/user/UID is
	// below /tmp, a writable root: it must stay read-only inside.
	script := "id -u; grep CapEff /proc/self/status; echo ok > file && echo wrote-file; echo pwned >> .git/config && echo wrote-git; touch /tmp/agent-ls-placeholders-65534/x && echo wrote-lock-dir"
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			cmd := exec.Command(bin, "attack", "as-runner", cwd, "sh", "-c", script)
			cmd.Env = testEnv("HOME=" + dir)
			if m.noNS {
				cmd.Env = append(cmd.Env, NoNamespaceEnv+"=1")
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
			out, _ := cmd.CombinedOutput()
			s := string(out)
			t.Logf("as nobody:\n%s", s)
			if !strings.Contains(s, "65534\n") || !strings.Contains(s, "CapEff:\t0000000000000000") || !strings.Contains(s, "wrote-file") {
				t.Fatalf("unprivileged sandboxed run misbehaved:\n%s", s)
			}
			if m.noNS {
				if !strings.Contains(s, "wrote-git") {
					t.Errorf("landlock-only: .git should be writable (ownership allows it)")
				}
				return
			}
			if !strings.Contains(s, "namespaces true") {
				t.Skip("!!!!!! SKIPPED: no user namespaces for an unprivileged user here !!!!!!")
			}
			if strings.Contains(s, "wrote-git") || !strings.Contains(s, "Read-only file system") {
				t.Errorf("ESCAPE: .git writable for an unprivileged agent")
			}
			if strings.Contains(s, "wrote-lock-dir") && !ownedDir("/run/user/65534", nobody) {
				t.Errorf("ESCAPE: the placeholder lock directory is writable for an unprivileged agent's command")
			}
		})
	}
}

// TestLikelyDeniedEndToEnd feeds real sandboxed failures to LikelyDenied.
func TestLikelyDeniedEndToEnd(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	p := Policy{Cwd: cwd}
	cases := []struct {
		argv []string
		want bool
	}{
		{[]string{"touch", "/etc/agent-ls-denied"}, true},
		{[]string{"sh", "-c", "echo hi > .git/x"}, Probe().Namespaces},
		{[]string{"no-such-command-anywhere"}, false},
		{[]string{"sh", "-c", "exit 3"}, false},
	}
	git(t, cwd, "init", "-q")
	for _, c := range cases {
		r := runIn(t, p, nil, c.argv...)
		if got := LikelyDenied(r.code, []byte(r.stdout), []byte(r.stderr), true); got != c.want {
			t.Errorf("%v: LikelyDenied = %v, want %v\n%v", c.argv, got, c.want, r)
		}
	}
}

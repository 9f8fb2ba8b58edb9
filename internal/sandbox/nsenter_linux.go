package sandbox

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

// -1: not asked; 0: in a fresh user and mount namespace; >0: the errno
// of the step named by agentls_ns_step.
int agentls_ns_errno = -1;
const char *agentls_ns_step = "";

static int agentls_write(const char *path, const char *s) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static void agentls_fail(const char *step) {
	agentls_ns_errno = errno ? errno : EINVAL;
	agentls_ns_step = step;
}

extern int agentls_supervisor;
extern struct timespec agentls_t_start, agentls_t_namespaces, agentls_t_forked;
void agentls_block_signals(void);
void agentls_start_pid_init(void);
void agentls_start_reaper(void);
void agentls_run_plan(int in_ns);

static void agentls_enter(int in_ns);
static int agentls_new_namespaces(int *pidns);
void agentls_start_probe(void);


// agentls_runs_agent tells the commands that run the agent (serve, acp,
// exec; no command is serve, and so is a first word that is a flag, but
// not a Go test binary's -test. flags nor help and version), whose
// sandbox probe starts here.
static int agentls_runs_agent(const char *arg1, const char *end) {
	if (arg1 >= end)
		return 1;
	if (strcmp(arg1, "serve") == 0 || strcmp(arg1, "acp") == 0 || strcmp(arg1, "exec") == 0)
		return 1;
	if (arg1[0] != '-' || strncmp(arg1, "-test.", 6) == 0)
		return 0;
	return strcmp(arg1, "--version") != 0 && strcmp(arg1, "-h") != 0 && strcmp(arg1, "--help") != 0 && strcmp(arg1, "-help") != 0;
}

// The early probe: the agent asks once per process whether commands can
// run in namespaces of their own (probe_linux.go). Asked from Go, that
// takes a fork of the whole process, which then pays a copy-on-write
// fault for each page it writes afterwards; asked here, before the
// runtime exists, the fork is of a small process and the answer is ready
// by the time the agent needs it. The child takes the same steps as the
// helper (agentls_new_namespaces), makes / private as the plan does, and
// forks once in the PID namespace; it writes what it found to the pipe.
struct agentls_probe_result {
	int ok;       // 1: namespaces work (agentls_ns_step/errno otherwise)
	int pidns;    // 1: in a PID namespace of their own too
	int err;      // the errno of the step that failed
	char step[64];
};
int agentls_probe_fd = -1;  // the pipe's read end, -1 when none started
int agentls_probe_pid = -1; // the child, reaped by the reader

// agentls_high_fd moves fd above the standard descriptors, which a
// process started with one of them closed would otherwise hand out here
// (and the child closes). It returns the new descriptor, or -1.
static int agentls_high_fd(int fd) {
	if (fd < 0 || fd > 2)
		return fd;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return high;
}

void agentls_start_probe(void) {
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	p[0] = agentls_high_fd(p[0]);
	p[1] = agentls_high_fd(p[1]);
	if (p[0] < 0 || p[1] < 0) {
		if (p[0] >= 0)
			close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid > 0) {
		close(p[1]);
		agentls_probe_fd = p[0];
		agentls_probe_pid = pid;
		return;
	}
	// The child holds none of the editor's pipes: a client waiting for
	// the end of stdout must not wait for it.
	close(p[0]);
	close(0);
	close(1);
	close(2);
	struct agentls_probe_result r;
	memset(&r, 0, sizeof r);
	int pidns = 0;
	if (agentls_new_namespaces(&pidns) != 0) {
		r.err = agentls_ns_errno;
		strncpy(r.step, agentls_ns_step, sizeof r.step - 1);
	} else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		r.err = errno;
		strncpy(r.step, "making / private", sizeof r.step - 1);
	} else {
		r.ok = 1;
		if (pidns) {
			pid_t init = fork();
			if (init == 0)
				_exit(0);
			int status;
			r.pidns = init > 0 && waitpid(init, &status, 0) == init && WIFEXITED(status);
		}
	}
	ssize_t w = write(p[1], &r, sizeof r);
	_exit(w == (ssize_t)sizeof r ? 0 : 1);
}

// Runs before the Go runtime starts its threads: unshare(CLONE_NEWUSER)
// needs a single-threaded process, and forking is only safe (and cheap)
// before the runtime exists. Acts only for `BINARY sandbox --in-namespace
// --plan` and `BINARY sandbox --no-namespace --plan`, the ways the runner
// starts the helper: it enters the namespaces, puts the supervisor in
// place and carries out the runner's plan (exec_plan_linux.go), so the command
// runs without the Go runtime ever starting in the helper.
__attribute__((constructor)) static void agentls_enter_namespaces(void) {
	static char buf[8192];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	char *end = buf + n;
	char *arg1 = buf + strlen(buf) + 1;
	if (agentls_runs_agent(arg1, end)) {
		agentls_start_probe();
		return;
	}
	if (arg1 >= end || strcmp(arg1, "sandbox") != 0)
		return;
	char *arg2 = arg1 + strlen(arg1) + 1;
	if (arg2 >= end)
		return;
	int in_ns = strcmp(arg2, "--in-namespace") == 0;
	if (!in_ns && strcmp(arg2, "--no-namespace") != 0)
		return;
	char *arg3 = arg2 + strlen(arg2) + 1;
	if (arg3 >= end || strcmp(arg3, "--plan") != 0)
		return;
	agentls_enter(in_ns);
	agentls_run_plan(in_ns);
}

// agentls_new_namespaces puts this single-threaded process in fresh user
// and mount namespaces, and a PID namespace (for its next child) where
// the kernel allows one, with its own ids mapped onto themselves. It
// returns 0, or -1 with agentls_ns_errno and agentls_ns_step set.
static int agentls_new_namespaces(int *pidns) {
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	// A PID namespace where the kernel allows one; otherwise a subreaper.
	*pidns = 1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0) {
		*pidns = 0;
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			{ agentls_fail("unshare(CLONE_NEWUSER|CLONE_NEWNS)"); return -1; }
	}
	// Map our own ids onto themselves: the only mapping an unprivileged
	// process may write, and the command keeps its identity.
	if (agentls_write("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
		{ agentls_fail("writing /proc/self/setgroups"); return -1; }
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (agentls_write("/proc/self/uid_map", map) != 0)
		{ agentls_fail("writing /proc/self/uid_map"); return -1; }
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (agentls_write("/proc/self/gid_map", map) != 0)
		{ agentls_fail("writing /proc/self/gid_map"); return -1; }
	return 0;
}

// agentls_enter enters the namespaces (in_ns) and starts the supervisor.
// It returns in the process that goes on to run the command, or with
// agentls_ns_errno or agentls_sup_errno set.
static void agentls_enter(int in_ns) {
	clock_gettime(CLOCK_MONOTONIC, &agentls_t_start);
	agentls_block_signals();
	if (!in_ns) {
		agentls_t_namespaces = agentls_t_start;
		agentls_supervisor = 2;
		agentls_start_reaper();
		clock_gettime(CLOCK_MONOTONIC, &agentls_t_forked);
		return;
	}

	int pidns;
	if (agentls_new_namespaces(&pidns) != 0)
		return;
	agentls_ns_errno = 0;
	clock_gettime(CLOCK_MONOTONIC, &agentls_t_namespaces);
	agentls_supervisor = pidns ? 1 : 2;
	if (pidns)
		agentls_start_pid_init();
	else
		agentls_start_reaper();
	clock_gettime(CLOCK_MONOTONIC, &agentls_t_forked);
}
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"
)

// earlyNamespaces is the early probe's answer (see agentls_start_probe):
// ok is false when none ran or it broke, and the probe is made from Go.
func earlyNamespaces() (namespaces, pidNamespace bool, note string, ok bool) {
	fd, pid := int(C.agentls_probe_fd), int(C.agentls_probe_pid)
	if fd < 0 {
		return false, false, "", false
	}
	C.agentls_probe_fd, C.agentls_probe_pid = -1, -1
	var r C.struct_agentls_probe_result
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&r)), unsafe.Sizeof(r))
	got := 0
	for got < len(buf) {
		n, err := syscall.Read(fd, buf[got:])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			break
		}
		got += n
	}
	syscall.Close(fd)
	for {
		if _, err := syscall.Wait4(pid, nil, 0, nil); err != syscall.EINTR {
			break
		}
	}
	if got != len(buf) {
		return false, false, "", false
	}
	if r.ok == 0 {
		step := C.GoString(&r.step[0])
		return false, false, fmt.Sprintf("the kernel refused an unprivileged user+mount namespace: %s: %v", step, syscall.Errno(r.err)), true
	}
	return true, r.pidns != 0, "", true
}

// startEarlyProbe starts the early probe from Go, for tests: the
// constructor starts it only in the commands that run the agent.
func startEarlyProbe() { C.agentls_start_probe() }

// runsAgent is the constructor's agentls_runs_agent on args (the words
// after the binary's name), for tests.
func runsAgent(args []string) bool {
	var b []byte
	for _, a := range args {
		b = append(append(b, a...), 0)
	}
	b = append(b, 0) // arg1 of no words points at the end
	p := C.CBytes(b)
	defer C.free(p)
	start := (*C.char)(p)
	return C.agentls_runs_agent(start, (*C.char)(unsafe.Add(p, len(b)-1))) != 0
}

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox_linux.h"

// -1: not asked; 0: in a fresh user and mount namespace; >0: the errno
// of the step named by agentls_ns_step.
int agentls_ns_errno = -1;
const char *agentls_ns_step = "";

int agentls_write(const char *path, const char *s) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static void agentls_enter(int in_ns);
static int agentls_new_namespaces(int *pidns, const char **step);

// Runs before the Go runtime starts its threads: unshare(CLONE_NEWUSER)
// needs a single-threaded process, and forking is only safe (and cheap)
// before the runtime exists. Acts only for `BINARY sandbox --in-namespace
// --plan` and `BINARY sandbox --no-namespace --plan`, the ways the runner
// starts the helper: it enters the namespaces, puts the supervisor in
// place and carries out the runner's plan (exec_plan_linux.c), so the command
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
// returns 0, or -1 with errno set and *step naming what failed.
static int agentls_new_namespaces(int *pidns, const char **step) {
	uid_t uid = geteuid();
	gid_t gid = getegid();
	// A PID namespace where the kernel allows one; otherwise a subreaper.
	*pidns = 1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID) != 0) {
		*pidns = 0;
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			{ *step = "unshare(CLONE_NEWUSER|CLONE_NEWNS)"; return -1; }
	}
	return agentls_map_ids(uid, gid, step);
}

// agentls_map_ids maps uid and gid, this process's ids before it entered
// a fresh user namespace, onto themselves there: the only mapping an
// unprivileged process may write, and the command keeps its identity.
int agentls_map_ids(uid_t uid, gid_t gid, const char **step) {
	char map[64];
	if (agentls_write("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
		{ *step = "writing /proc/self/setgroups"; return -1; }
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (agentls_write("/proc/self/uid_map", map) != 0)
		{ *step = "writing /proc/self/uid_map"; return -1; }
	snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (agentls_write("/proc/self/gid_map", map) != 0)
		{ *step = "writing /proc/self/gid_map"; return -1; }
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
	const char *step = "";
	// The session's network namespace first (netns_linux.c): the user
	// namespace made next is then a child of the one that owns it.
	if (agentls_join_session_net(&step) != 0 || agentls_new_namespaces(&pidns, &step) != 0) {
		agentls_ns_errno = errno ? errno : EINVAL;
		agentls_ns_step = step;
		return;
	}
	agentls_ns_errno = 0;
	clock_gettime(CLOCK_MONOTONIC, &agentls_t_namespaces);
	agentls_supervisor = pidns ? 1 : 2;
	if (pidns)
		agentls_start_pid_init();
	else
		agentls_start_reaper();
	clock_gettime(CLOCK_MONOTONIC, &agentls_t_forked);
}

// The namespace probe: what agentls_new_namespaces and the plan's first
// mount do in the helper, tried in a child that shares this process's
// memory (CLONE_VM | CLONE_VFORK, as posix_spawn starts its children), so
// asking costs no copy of the page tables, and no copy-on-write faults
// after it, as a fork of the whole agent would. The mount is the step an
// LSM such as Ubuntu's AppArmor restriction of user namespaces refuses.
struct agentls_probe {
	int pidns;
	int err;
	const char *step;
};

static int agentls_probe_child(void *arg) {
	struct agentls_probe *p = arg;
	if (agentls_new_namespaces(&p->pidns, &p->step) != 0) {
		p->err = errno ? errno : EINVAL;
		_exit(1);
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		p->err = errno;
		p->step = "making mounts private";
		_exit(1);
	}
	_exit(0);
}

// agentls_vm_child runs fn(arg) in a child that shares this process's
// memory (and, with CLONE_FILES in flags, its descriptors) and waits for
// it to exit; 0, or the errno of what failed with *step naming it.
int agentls_vm_child(int (*fn)(void *), void *arg, int flags, const char **step) {
	const size_t size = 64 * 1024;
	char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED) {
		*step = "allocating the child's stack";
		return errno;
	}
	// The child runs on this thread's memory until it exits: no signal
	// may reach it (a handler of the Go runtime would run there), so it
	// starts with every signal blocked, and this thread is suspended
	// until it is gone (CLONE_VFORK). No exit signal: __WALL waits.
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid_t pid = clone(fn, stack + size, CLONE_VM | CLONE_VFORK | flags, arg);
	int err = pid < 0 ? errno : 0;
	if (pid > 0)
		while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(stack, size);
	if (pid < 0) {
		*step = "clone";
		return err;
	}
	return 0;
}

int agentls_probe_namespaces(int *pidns, const char **step) {
	struct agentls_probe p = {0, 0, ""};
	int err = agentls_vm_child(agentls_probe_child, &p, 0, step);
	if (err != 0)
		return err;
	*pidns = p.pidns;
	*step = p.step;
	return p.err;
}

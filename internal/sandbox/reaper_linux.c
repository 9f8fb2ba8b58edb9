#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox_linux.h"

// The processes that keep a command from leaving anything behind. They run
// in C from the helper's constructor, before the Go runtime exists, so
// forking is safe and cheap and no Go signal handling gets in the way.
//
// With a PID namespace (started as `sandbox --in-namespace`):
//
//	outer  the runner's child, outside the namespace: waits for init and
//	       relays its exit status; SIGTERM (also its parent-death signal)
//	       SIGKILLs init and waits until the namespace is empty.
//	init   PID 1 of the new namespace: forwards signals to the command,
//	       reaps orphans, decides the command's Unix socket connect and
//	       bind (notify_linux.c), and exits with the command's status when the
//	       command exits; the kernel then kills every process left in the
//	       namespace, daemons and double forks included.
//	helper PID 2, which carries out the plan and execs the command in
//	       place (exec_plan_linux.c).
//
// Without one (started as `sandbox --no-namespace`):
//
//	reaper the runner's child, a child subreaper: orphans of the command
//	       become its children; it decides their Unix socket connect and
//	       bind (notify_linux.c). When the command exits, or on SIGTERM,
//	       it SIGKILLs every descendant until none is left.
//	helper as above.

// 1 when the command runs in a PID namespace of its own, 2 when under a
// subreaper, 0 when neither was asked for (set by the constructor in
// nsenter_linux.c).
int agentls_supervisor = 0;

// Start-up times for --timings: the constructor's start, and the end of
// the namespace set-up and of the forks.
struct timespec agentls_t_start, agentls_t_namespaces, agentls_t_forked;

// 0 once the supervising processes are in place; otherwise the errno of
// the step named by agentls_sup_step.
int agentls_sup_errno = -1;
const char *agentls_sup_step = "not started";

static void agentls_sup_fail(const char *step) {
	agentls_sup_errno = errno ? errno : EINVAL;
	agentls_sup_step = step;
}

// The signals the supervising processes act on; blocked from the start of
// the constructor so none is lost before the loop waits for them.
static void agentls_supervised_set(sigset_t *set) {
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

void agentls_block_signals(void) {
	sigset_t set;
	agentls_supervised_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

// agentls_unblock_signals gives the process that goes on to be the
// helper (and the command) the signal mask it was started with.
static void agentls_unblock_signals(void) {
	sigset_t set;
	agentls_supervised_set(&set);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static int agentls_exit_code(int status) {
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 125;
}

static void agentls_say(const char *msg) {
	ssize_t r = write(2, msg, strlen(msg));
	(void)r;
}

// agentls_supervise waits for child, reaping any other child on the way.
// SIGINT, SIGHUP and SIGQUIT sent by a process are passed on to child; the
// same signals from the terminal are not, since they reach the whole
// foreground process group, the command included. SIGTERM is passed on
// too, unless term_kills: then it SIGKILLs child (a teardown). Returns
// child's wait status, and sets *torn_down when a SIGTERM tore it down.
// While it waits it serves the Unix socket calls of the command
// (notify_linux.c): handover is the supervisor's end of the socketpair the
// helper sends the filter's listener on, -1 for none.
static int agentls_supervise(pid_t child, int term_kills, int *torn_down, int handover) {
	sigset_t set;
	agentls_supervised_set(&set);
	int sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0 && handover >= 0) {
		// Without a signalfd nothing is served: connect and bind stay
		// denied, everything else as usual.
		close(handover);
		handover = -1;
	}
	for (;;) {
		int sig, code;
		if (sigfd >= 0) {
			struct signalfd_siginfo si;
			ssize_t n = read(sigfd, &si, sizeof si);
			if (n != sizeof si) {
				agentls_notify_poll(sigfd, &handover);
				continue;
			}
			sig = si.ssi_signo;
			code = si.ssi_code;
		} else {
			siginfo_t si;
			sig = sigwaitinfo(&set, &si);
			if (sig < 0)
				continue;
			code = si.si_code;
		}
		if (sig == SIGCHLD) {
			int status;
			pid_t r;
			while ((r = waitpid(-1, &status, WNOHANG)) > 0) {
				if (r == child)
					return status;
			}
			if (r < 0 && errno == ECHILD)
				return 125 << 8;
			continue;
		}
		if (sig == SIGTERM && term_kills) {
			kill(child, SIGKILL);
			*torn_down = 1;
			continue;
		}
		if (code == SI_KERNEL)
			continue;
		kill(child, sig);
	}
}

// agentls_kill_children SIGKILLs every child of this (single-threaded)
// process and returns how many it found, or -1 when it cannot tell.
static int agentls_kill_children(pid_t self) {
	char path[64];
	static char buf[65536];
	int n = 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)self, (int)self);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t len = 0, r;
		while (len < (ssize_t)sizeof buf - 1 && (r = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
			len += r;
		close(fd);
		buf[len] = 0;
		for (char *p = buf; *p;) {
			char *end;
			long pid = strtol(p, &end, 10);
			if (end == p)
				break;
			if (pid > 0 && kill((pid_t)pid, SIGKILL) == 0)
				n++;
			p = end;
		}
		return n;
	}
	// Without CONFIG_PROC_CHILDREN: every process whose parent is us.
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end != 0 || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		int sfd = open(path, O_RDONLY | O_CLOEXEC);
		if (sfd < 0)
			continue;
		char st[512];
		ssize_t len = read(sfd, st, sizeof st - 1);
		close(sfd);
		if (len <= 0)
			continue;
		st[len] = 0;
		char *rp = strrchr(st, ')');
		int ppid = 0;
		char state;
		if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == (int)self && kill((pid_t)pid, SIGKILL) == 0)
			n++;
	}
	closedir(d);
	return n;
}

// agentls_kill_descendants SIGKILLs and reaps everything below this
// subreaper: the children first; their children then become ours, and so
// on until nothing is left.
static void agentls_kill_descendants(void) {
	pid_t self = getpid();
	for (;;) {
		int status;
		pid_t r;
		while ((r = waitpid(-1, &status, WNOHANG)) > 0)
			;
		if (r < 0)
			return; // ECHILD: nothing below us
		int n = agentls_kill_children(self);
		if (n < 0)
			return;
		if (n == 0) {
			// A child the listing missed (reparented meanwhile): look again.
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
			continue;
		}
		waitpid(-1, &status, 0);
	}
}

// agentls_become_helper readies the child that goes on to carry out the
// plan: it keeps its end of the hand-over socketpair, reports the
// supervisor in place and gets the signal mask it was started with.
static void agentls_become_helper(int sup_end, int helper_end) {
	if (sup_end >= 0)
		close(sup_end);
	agentls_notify_sock = helper_end;
	agentls_sup_errno = 0;
	agentls_unblock_signals();
}

// agentls_start_pid_init runs in the outer helper just after it entered
// fresh user, mount and PID namespaces. It returns only in the process
// that goes on to carry out the plan (PID 2), or with agentls_ns_errno set.
void agentls_start_pid_init(void) {
	int alive[2];
	if (pipe2(alive, O_CLOEXEC) != 0) {
		agentls_sup_fail("pipe");
		return;
	}
	pid_t init = fork();
	if (init < 0) {
		agentls_sup_fail("fork (PID 1 of the namespace)");
		return;
	}
	if (init > 0) {
		// outer: alive[1] stays open for as long as this process lives.
		close(alive[0]);
		int torn = 0;
		int status = agentls_supervise(init, 1, &torn, -1);
		_exit(torn ? 128 + SIGTERM : agentls_exit_code(status));
	}
	// init (PID 1): die with the outer helper, even if it died already.
	close(alive[1]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fcntl(alive[0], F_SETFL, O_NONBLOCK);
	char c;
	if (read(alive[0], &c, 1) == 0)
		_exit(128 + SIGKILL);
	close(alive[0]);
	int sup_end, helper_end;
	agentls_notify_pair(&sup_end, &helper_end);
	pid_t helper = fork();
	if (helper < 0) {
		agentls_say("agent-ls sandbox: fork in the PID namespace failed\n");
		_exit(125);
	}
	if (helper == 0) {
		agentls_become_helper(sup_end, helper_end);
		return;
	}
	if (helper_end >= 0)
		close(helper_end);
	int torn = 0;
	_exit(agentls_exit_code(agentls_supervise(helper, 0, &torn, sup_end)));
}

// agentls_start_reaper runs in a helper started without namespaces. It
// returns only in the child that goes on to carry out the plan, or with
// agentls_ns_errno set.
void agentls_start_reaper(void) {
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		agentls_sup_fail("prctl(PR_SET_CHILD_SUBREAPER)");
		return;
	}
	pid_t self = getpid();
	int sup_end, helper_end;
	agentls_notify_pair(&sup_end, &helper_end);
	pid_t helper = fork();
	if (helper < 0) {
		agentls_sup_fail("fork");
		return;
	}
	if (helper == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(128 + SIGKILL);
		agentls_become_helper(sup_end, helper_end);
		return;
	}
	if (helper_end >= 0)
		close(helper_end);
	int torn = 0;
	int status = agentls_supervise(helper, 1, &torn, sup_end);
	agentls_kill_descendants();
	_exit(torn ? 128 + SIGTERM : agentls_exit_code(status));
}

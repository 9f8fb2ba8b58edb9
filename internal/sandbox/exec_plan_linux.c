#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// The helper's work between its start and the command's exec, carried out
// from the constructor (nsenter_linux.c) so that the Go runtime never starts in
// the helper: the runner worked everything out and wrote it as a plan
// (plan_linux.go) to descriptor 3. Every step that fails ends the helper with
// the step named, before the command runs; nothing here runs the command
// less confined than the plan says.

#include "sandbox_linux.h"
#include "syscalls_linux.h"

// Exit codes, as ExitSetupFailed, ExitNotExecutable and ExitNotFound.
#define PLAN_SETUP_FAILED 125
#define PLAN_NOT_EXECUTABLE 126
#define PLAN_NOT_FOUND 127

// The rights of a Landlock rule on something that is not a directory.
#define LL_FILE_RIGHTS ((1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 14) | (1ULL << 15))

struct agentls_ll_ruleset_attr {
	uint64_t handled_access_fs, handled_access_net, scoped;
};

struct agentls_ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct agentls_plan {
	const char *fail_msg;
	int fail_code;
	const char *cwd, *path;
	char **argv;
	int argc, unconfined;
	uint64_t shm_rights;
	int has_landlock;
	struct agentls_ll_ruleset_attr ll;
	struct sock_filter *bpf;
	unsigned short bpf_len;
	char *sock_roots; // NUL-separated; with them the filter has notifications
	size_t sock_roots_len;
	int sock_registry; // the descriptor of the socket registry, 0: none
	int notify; // the filter has notifications without socket roots too
	int join; // the command runs in the session's network namespace
};

extern char **environ;

static int agentls_timings_on;
static struct timespec agentls_t_last;
static char agentls_timings[512];

static long agentls_us(struct timespec a, struct timespec b) {
	return (long)((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000L);
}

static void agentls_phase(const char *name, long us) {
	size_t n = strlen(agentls_timings);
	snprintf(agentls_timings + n, sizeof agentls_timings - n, "%s%s=%ld", n ? " " : "", name, us);
}

static void agentls_mark(const char *name) {
	if (!agentls_timings_on)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	agentls_phase(name, agentls_us(agentls_t_last, now));
	agentls_t_last = now;
}

// agentls_die reports what failed, as the Go helper did ("agent-ls
// sandbox: WHAT: reason", the reason in Go's lower-case errno wording),
// and exits with code.
static void agentls_die(int code, const char *what, const char *detail, int err) {
	char msg[4096];
	char reason[256] = "";
	if (err) {
		snprintf(reason, sizeof reason, "%s", strerror(err));
		if (reason[0] >= 'A' && reason[0] <= 'Z' && !(reason[1] >= 'A' && reason[1] <= 'Z'))
			reason[0] += 'a' - 'A';
	}
	snprintf(msg, sizeof msg, "agent-ls sandbox: %s%s%s%s%s\n", what,
		detail ? detail : "", err ? ": " : "", reason,
		code == PLAN_NOT_FOUND && err ? " (a missing interpreter?)" : "");
	ssize_t r = write(2, msg, strlen(msg));
	(void)r;
	_exit(code);
}

static uint64_t agentls_u64(const unsigned char *p) {
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

// agentls_read_plan reads descriptor 3 to its end; the records' strings
// are NUL-terminated in place (each record's tag byte of the next record
// is copied out first).
static unsigned char *agentls_read_plan(size_t *len) {
	size_t cap = 1 << 14, n = 0;
	unsigned char *buf = malloc(cap + 1);
	if (!buf)
		agentls_die(PLAN_SETUP_FAILED, "reading the plan", NULL, ENOMEM);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			unsigned char *b = realloc(buf, cap + 1);
			if (!b)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", NULL, ENOMEM);
			buf = b;
		}
		ssize_t r = read(3, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			agentls_die(PLAN_SETUP_FAILED, "reading the plan from descriptor 3", NULL, errno);
		if (r == 0)
			break;
		n += r;
	}
	close(3);
	*len = n;
	return buf;
}

// A record's payload as a C string: copied, since the payload is not
// NUL-terminated in the buffer.
static char *agentls_str(const unsigned char *p, uint32_t n) {
	char *s = malloc(n + 1);
	if (!s)
		agentls_die(PLAN_SETUP_FAILED, "reading the plan", NULL, ENOMEM);
	memcpy(s, p, n);
	s[n] = 0;
	if (strlen(s) != n)
		agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a NUL byte in a string", 0);
	return s;
}

// agentls_bind_ro mounts src read-only onto dst, recursively. A symlink is
// pinned as the link itself. The new mount API keeps the source's
// nosuid/nodev/noexec/atime flags, which a user namespace may not drop;
// kernels before 5.12 get the classic bind and remount, which follows a
// final symlink (agentls_bind_flag, nosuid_linux.c).
static int agentls_bind_ro(const char *src, const char *dst) {
	return agentls_bind_flag(src, dst, AT_SYMLINK_NOFOLLOW, MOUNT_ATTR_RDONLY, MS_RDONLY);
}

// agentls_cover pins a placeholder: a directory by a read-only bind of
// itself (it is empty), anything else by a read-only /dev/null.
static int agentls_cover(const char *path) {
	struct stat st;
	if (lstat(path, &st) != 0)
		return -1;
	if (S_ISDIR(st.st_mode))
		return agentls_bind_ro(path, path);
	return agentls_bind_ro("/dev/null", path);
}

// agentls_anchor makes the directory path a mount point of its own, a
// writable recursive bind onto itself, which the kernel will not let a
// command rename or remove (pins_linux.go says why).
static int agentls_anchor(const char *path) {
	int fd = syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
	if (fd < 0 && errno == ENOSYS)
		return mount(path, path, NULL, MS_BIND | MS_REC, NULL);
	if (fd < 0)
		return -1;
	return agentls_move_tree(fd, path);
}

// agentls_hide covers the folder path with an empty read-only tmpfs: a
// folder of agent-ls's own that commands may not read (the OAuth tokens
// of MCP servers).
static int agentls_hide(const char *path) {
	return mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0500");
}

static void agentls_mount_step(unsigned char tag, const char *path) {
	int r = tag == 'W' ? agentls_anchor(path) : tag == 'H' ? agentls_cover(path) : tag == 'X' ? agentls_hide(path) : agentls_bind_ro(path, path);
	if (r != 0)
		agentls_die(PLAN_SETUP_FAILED, tag == 'W' ? "protecting paths in the mount namespace: bind mount of " : tag == 'X' ? "hiding paths in the mount namespace: tmpfs over " : "protecting paths in the mount namespace: read-only mount of ", path, errno);
}

// agentls_drop_caps leaves the process with no capabilities: bounding set
// emptied (so exec as root cannot regain any), ambient and inheritable
// cleared, permitted and effective zeroed. Without CAP_SETPCAP (an
// unprivileged user outside a user namespace) the bounding set cannot
// shrink, but then there is nothing to regain either: no_new_privs keeps
// exec from adding any.
static void agentls_drop_caps(void) {
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		agentls_die(PLAN_SETUP_FAILED, "clearing ambient capabilities", NULL, errno);
	for (int c = 0; c < 64; c++) {
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL)
			break; // beyond the kernel's last capability
		if (errno != EPERM)
			agentls_die(PLAN_SETUP_FAILED, "dropping a capability from the bounding set", NULL, errno);
	}
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) != 0)
		agentls_die(PLAN_SETUP_FAILED, "clearing capabilities", NULL, errno);
}

static void agentls_ll_rule(int ruleset, const char *path, uint64_t access, int optional, uint64_t handled) {
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (optional && errno == ENOENT)
			return;
		agentls_die(PLAN_SETUP_FAILED, "landlock: opening ", path, errno);
	}
	struct stat st;
	if (fstat(fd, &st) != 0)
		agentls_die(PLAN_SETUP_FAILED, "landlock: ", path, errno);
	access &= handled;
	if (!S_ISDIR(st.st_mode))
		access &= LL_FILE_RIGHTS;
	if (access != 0) {
		struct agentls_ll_path_beneath pb = {.allowed_access = access, .parent_fd = fd};
		if (syscall(SYS_landlock_add_rule, ruleset, 1 , &pb, 0) != 0)
			agentls_die(PLAN_SETUP_FAILED, "landlock: adding the rule for ", path, errno);
	}
	close(fd);
}

// agentls_load_seccomp loads the filter. With socket roots or in the
// session's network namespace ('J') its connect and bind rules notify,
// and with the 'D' record its set-group-ID chmod rules
// (chmod_notify_linux.c): the filter is loaded with a listener, which goes to
// the supervisor (notify_linux.c) and is closed here, before the command runs.
// Where a listener cannot be had (a filter with one is already in force:
// a sandbox inside a sandbox) the filter is loaded without, and the
// kernel answers those calls ENOSYS: denied.
static void agentls_load_seccomp(struct agentls_plan *pl) {
	struct sock_fprog prog = {.len = pl->bpf_len, .filter = pl->bpf};
	if (pl->sock_roots_len || pl->notify || pl->join) {
		int listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
		// No socket roots: one empty one, so the message is not empty.
		const char *roots = pl->sock_roots_len ? pl->sock_roots : "";
		size_t roots_len = pl->sock_roots_len ? pl->sock_roots_len : 1;
		if (listener >= 0) {
			if (agentls_notify_handover(listener, pl->sock_registry ? pl->sock_registry : -1, roots, roots_len) != 0)
				agentls_die(PLAN_SETUP_FAILED, "seccomp: handing the listener to the supervisor", NULL, errno);
			return;
		}
		if (errno != EBUSY)
			agentls_die(PLAN_SETUP_FAILED, "seccomp: load with a listener", NULL, errno);
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		agentls_die(PLAN_SETUP_FAILED, "seccomp: load", NULL, errno);
}

// agentls_parse_plan reads the records into pl. The mounts wait for the
// namespace checks and the rules for the ruleset: a second pass each.
static void agentls_parse_plan(const unsigned char *buf, size_t len, struct agentls_plan *pl) {
	for (size_t off = 0; off < len;) {
		if (len - off < 5)
			agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a truncated record", 0);
		unsigned char tag = buf[off];
		uint32_t n = buf[off + 1] | buf[off + 2] << 8 | buf[off + 3] << 16 | (uint32_t)buf[off + 4] << 24;
		const unsigned char *p = buf + off + 5;
		if (n > len - off - 5)
			agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a truncated record", 0);
		off += 5 + (size_t)n;
		switch (tag) {
		case 'F':
			if (n < 1)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": an empty failure", 0);
			pl->fail_code = p[0];
			pl->fail_msg = agentls_str(p + 1, n - 1);
			break;
		case 'C': pl->cwd = agentls_str(p, n); break;
		case 'P': pl->path = agentls_str(p, n); break;
		case 'A': pl->argv[pl->argc++] = agentls_str(p, n); break;
		case 'U': pl->unconfined = 1; break;
		case 'D': pl->notify = 1; break;
		case 'J':
			// The session's network namespace, joined by the
			// constructor (netns_linux.c): the filter lets TCP and
			// UDP sockets be made, and connect and bind notify.
			if (n != 8)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a bad network namespace record", 0);
			pl->join = 1;
			break;
		case 'M': case 'H': case 'W': case 'X': case 'R': case 'r': case 'N': case 'G': case 'T': break; // second pass
		case 'K': {
			// A socket root for the supervisor (notify_linux.c).
			char *r = agentls_str(p, n);
			char *b = realloc(pl->sock_roots, pl->sock_roots_len + n + 1);
			if (!b)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", NULL, ENOMEM);
			memcpy(b + pl->sock_roots_len, r, n + 1);
			pl->sock_roots = b;
			pl->sock_roots_len += n + 1;
			free(r);
			break;
		}
		case 'Y':
			// The socket registry's descriptor, for the supervisor.
			if (n != 4)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a bad socket registry record", 0);
			pl->sock_registry = (int)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
			if (pl->sock_registry < 4 || fcntl(pl->sock_registry, F_GETFD) < 0)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": no socket registry at its descriptor", 0);
			break;
		case 'S':
			if (n != 8)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a bad /dev/shm record", 0);
			pl->shm_rights = agentls_u64(p);
			break;
		case 'L':
			if (n != 24)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a bad Landlock record", 0);
			pl->has_landlock = 1;
			pl->ll.handled_access_fs = agentls_u64(p);
			pl->ll.handled_access_net = agentls_u64(p + 8);
			pl->ll.scoped = agentls_u64(p + 16);
			break;
		case 'B':
			if (n == 0 || n % sizeof(struct sock_filter) != 0 || n / sizeof(struct sock_filter) > 0xffff)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a bad seccomp program", 0);
			pl->bpf = malloc(n);
			if (!pl->bpf)
				agentls_die(PLAN_SETUP_FAILED, "reading the plan", NULL, ENOMEM);
			memcpy(pl->bpf, p, n);
			pl->bpf_len = n / sizeof(struct sock_filter);
			break;
		default:
			agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": an unknown record", 0);
		}
	}
}

// agentls_check_plan ends the helper when the plan reports a failure, the
// constructor could not set up what the plan relies on, or the plan would
// run the command less confined than asked.
static void agentls_check_plan(const struct agentls_plan *pl, int in_ns) {
	if (pl->fail_msg) {
		char msg[4200];
		snprintf(msg, sizeof msg, "agent-ls sandbox: %s\n", pl->fail_msg);
		ssize_t r = write(2, msg, strlen(msg));
		(void)r;
		_exit(pl->fail_code);
	}
	if (in_ns && agentls_ns_errno != 0)
		agentls_die(PLAN_SETUP_FAILED, "entering the user and mount namespace: ", agentls_ns_step, agentls_ns_errno > 0 ? agentls_ns_errno : EINVAL);
	// A filter that lets TCP and UDP sockets be made is only ever
	// loaded in the session's own network namespace.
	if (pl->join && !agentls_net_joined)
		agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": the session's network namespace was not joined", 0);
	if (agentls_sup_errno != 0)
		agentls_die(PLAN_SETUP_FAILED, "starting the process that ends everything the command starts: ", agentls_sup_step, agentls_sup_errno > 0 ? agentls_sup_errno : EINVAL);
	if (!pl->cwd || !pl->path || pl->argc == 0)
		agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": no command in it", 0);
	// Never less than the plan says: confined means Landlock and seccomp.
	if (!pl->unconfined && (!pl->has_landlock || !pl->bpf))
		agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": it confines the command with neither Landlock nor seccomp", 0);

}

// agentls_protect_paths pins the protected paths read-only in the
// helper's own mount namespace and gives it a private /dev/shm.
static void agentls_protect_paths(const unsigned char *buf, size_t len, struct agentls_plan *pl) {
	// Remounting / private in the host's own mount namespace would
	// change the whole machine: the constructor made this one ours.
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		agentls_die(PLAN_SETUP_FAILED, "protecting paths in the mount namespace: making mounts private", NULL, errno);
	// nosuid first: the read-only mounts below inside the roots copy it.
	char *root = NULL;
	if (agentls_nosuid_roots(buf, len, &root) != 0)
		agentls_die(PLAN_SETUP_FAILED, "mounting the writable roots nosuid: ", root, errno);
	for (size_t off = 0; off < len;) {
		unsigned char tag = buf[off];
		uint32_t n = buf[off + 1] | buf[off + 2] << 8 | buf[off + 3] << 16 | (uint32_t)buf[off + 4] << 24;
		if (tag == 'M' || tag == 'H' || tag == 'W' || tag == 'X')
			agentls_mount_step(tag, agentls_str(buf + off + 5, n));
		off += 5 + (size_t)n;
	}
	// A private /dev/shm: POSIX shared memory and semaphores
	// (Python's multiprocessing) work without the host's segments.
	if (pl->shm_rights && mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
		pl->shm_rights = 0;
	agentls_mark("mounts");
}

// agentls_landlock restricts the helper (and so the command) to the
// plan's Landlock ruleset, no_new_privs set first.
static void agentls_landlock(const unsigned char *buf, size_t len, const struct agentls_plan *pl) {
	int rs = syscall(SYS_landlock_create_ruleset, &pl->ll, sizeof pl->ll, 0);
	if (rs < 0)
		agentls_die(PLAN_SETUP_FAILED, "landlock: creating the ruleset", NULL, errno);
	for (size_t off = 0; off < len;) {
		unsigned char tag = buf[off];
		uint32_t n = buf[off + 1] | buf[off + 2] << 8 | buf[off + 3] << 16 | (uint32_t)buf[off + 4] << 24;
		if ((tag == 'R' || tag == 'r') && n > 8)
			agentls_ll_rule(rs, agentls_str(buf + off + 13, n - 8), agentls_u64(buf + off + 5), tag == 'r', pl->ll.handled_access_fs);
		else if (tag == 'R' || tag == 'r')
			agentls_die(PLAN_SETUP_FAILED, "reading the plan", ": a bad Landlock rule", 0);
		off += 5 + (size_t)n;
	}
	if (pl->shm_rights)
		agentls_ll_rule(rs, "/dev/shm", pl->shm_rights, 0, pl->ll.handled_access_fs);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		agentls_die(PLAN_SETUP_FAILED, "prctl(PR_SET_NO_NEW_PRIVS)", NULL, errno);
	if (syscall(SYS_landlock_restrict_self, rs, 0) != 0)
		agentls_die(PLAN_SETUP_FAILED, "landlock: enforcing the ruleset", NULL, errno);
	close(rs);
}

// agentls_run_plan carries out the plan and execs the command; it never
// returns. in_ns: the constructor entered fresh user and mount namespaces.
void agentls_run_plan(int in_ns) {
	agentls_timings_on = getenv("AGENT_LS_SANDBOX_TIMINGS") && *getenv("AGENT_LS_SANDBOX_TIMINGS");
	clock_gettime(CLOCK_MONOTONIC, &agentls_t_last);
	if (agentls_timings_on && agentls_t_start.tv_sec) {
		agentls_phase("namespaces", agentls_us(agentls_t_start, agentls_t_namespaces));
		agentls_phase("supervisor", agentls_us(agentls_t_namespaces, agentls_t_forked));
		agentls_t_last = agentls_t_forked;
	}
	size_t len;
	unsigned char *buf = agentls_read_plan(&len);
	agentls_mark("plan");
	struct agentls_plan pl;
	memset(&pl, 0, sizeof pl);
	pl.argv = calloc(len / 5 + 2, sizeof(char *));
	if (!pl.argv)
		agentls_die(PLAN_SETUP_FAILED, "reading the plan", NULL, ENOMEM);
	agentls_parse_plan(buf, len, &pl);
	agentls_check_plan(&pl, in_ns);
	const char *step = NULL;
	if (!pl.unconfined && agentls_limit_processes(buf, len, &step) != 0)
		agentls_die(PLAN_SETUP_FAILED, "the process limit: ", step, errno);
	if (!pl.unconfined && in_ns)
		agentls_protect_paths(buf, len, &pl);
	if (chdir(pl.cwd) != 0)
		agentls_die(PLAN_SETUP_FAILED, "chdir ", pl.cwd, errno);
	if (!pl.unconfined) {
		// Descriptors the helper inherited beyond stdio must not reach
		// the command: an open socket would be a way around the filter.
		if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
			for (int fd = 3; fd < 65536; fd++)
				fcntl(fd, F_SETFD, FD_CLOEXEC);
		agentls_drop_caps();
		agentls_mark("checks");

		agentls_landlock(buf, len, &pl);
		agentls_mark("landlock");

		agentls_load_seccomp(&pl);
		agentls_mark("seccomp");
	}
	agentls_notify_close_helper_end();
	if (agentls_timings_on) {
		char line[600];
		snprintf(line, sizeof line, "agent-ls sandbox: timings (µs) %s\n", agentls_timings);
		ssize_t r = write(2, line, strlen(line));
		(void)r;
	}
	execve(pl.path, pl.argv, environ);
	int e = errno;
	agentls_die(e == ENOENT ? PLAN_NOT_FOUND : PLAN_NOT_EXECUTABLE, pl.argv[0], NULL, e);
}

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sandbox_linux.h"
#include "syscalls_linux.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
// arm64 and the other architectures of the generic syscall table have no
// chmod(2), only fchmodat: -1 is no syscall's number, so no notification
// is taken for it.
#ifndef SYS_chmod
#define SYS_chmod (-1)
#endif

// Set-group-ID on a directory (seccomp_setid_linux.go): the filter cannot
// tell a directory from a file, so a chmod, fchmod, fchmodat or fchmodat2
// whose mode has S_ISGID without S_ISUID comes to the supervisor, which
// makes the call itself when its target is a directory of the caller's,
// and refuses it (EPERM) otherwise. As for sockets (notify_linux.c) the
// caller is never let through: the supervisor takes the caller's
// descriptor (pidfd_getfd) or resolves the caller's path itself, checks
// what it opened, and changes the mode of that very inode through its own
// descriptor, so nothing the caller's other threads do after the check
// matters. A relative path is taken against the caller's directory
// descriptor, or against its cwd, found through the host's /proc by the
// caller's PID there (which the pidfd's fdinfo gives, whatever PID
// namespace the notification's PID is of); a notification still pending
// after everything of the caller's was taken proves that all of it was
// the caller's.

static int agentls_chmod_valid(int listener, uint64_t id) {
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

// agentls_read_path copies the NUL-terminated path at addr out of the
// caller, a page at a time (the string may end just before an unmapped
// page). 0, or an errno.
static int agentls_read_path(pid_t pid, uint64_t addr, char *buf, size_t size) {
	size_t got = 0;
	while (got < size) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);
		if (chunk > size - got)
			chunk = size - got;
		struct iovec l = {buf + got, chunk}, r = {(void *)(uintptr_t)a, chunk};
		ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return EFAULT;
		if (memchr(buf + got, 0, (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return ENAMETOOLONG;
}

// agentls_host_pid is the PID, in the PID namespace of the mounted /proc,
// of the task pidfd refers to; -1 when it is gone.
static int agentls_host_pid(int pidfd) {
	char p[64], b[1024];
	snprintf(p, sizeof p, "/proc/self/fdinfo/%d", pidfd);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return -1;
	b[n] = 0;
	for (char *line = b; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, "Pid:", 4) == 0)
			return atoi(line + 4);
	}
	return -1;
}

// agentls_in_groups: is gid the supervisor's (so the caller's) group or
// one of its supplementary groups?
static int agentls_in_groups(gid_t gid) {
	static gid_t list[NGROUPS_MAX];
	if (gid == getegid())
		return 1;
	int n = getgroups(NGROUPS_MAX, list);
	for (int i = 0; i < n; i++)
		if (list[i] == gid)
			return 1;
	return 0;
}

// agentls_chmod_target opens what the call names, as an O_PATH descriptor
// of the supervisor's; returns it, or -errno.
static int agentls_chmod_target(struct seccomp_notif *req, int listener, const char *path, unsigned flags) {
	int nr = req->data.nr;
	int pidfd = syscall(SYS_pidfd_open, req->pid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL)
		pidfd = syscall(SYS_pidfd_open, req->pid, 0);
	if (pidfd < 0)
		return -EPERM;
	if (!agentls_chmod_valid(listener, req->id)) {
		close(pidfd);
		return -EPERM;
	}
	int target = -1, base = -1, err = 0;
	if (nr == SYS_fchmod) {
		target = syscall(SYS_pidfd_getfd, pidfd, (int)req->data.args[0], 0);
		if (target < 0)
			err = errno == EBADF ? EBADF : EPERM;
		else if (fcntl(target, F_GETFL) & O_PATH)
			err = EBADF; // fchmod refuses an O_PATH descriptor
	} else if (path[0] != '/') {
		int dirfd = nr == SYS_chmod ? AT_FDCWD : (int)req->data.args[0];
		if (dirfd == AT_FDCWD) {
			char cwd[64];
			int hp = agentls_host_pid(pidfd);
			snprintf(cwd, sizeof cwd, "/proc/%d/cwd", hp);
			base = hp > 0 ? open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
			if (base < 0)
				err = EPERM;
		} else {
			base = syscall(SYS_pidfd_getfd, pidfd, dirfd, 0);
			if (base < 0)
				err = errno == EBADF ? EBADF : EPERM;
		}
	}
	// The caller's thread could have died and its PID been reused while
	// its descriptors and cwd were taken: only a notification still
	// pending proves they were the caller's.
	if (!err && !agentls_chmod_valid(listener, req->id))
		err = EPERM;
	close(pidfd);
	if (!err && nr != SYS_fchmod) {
		int at = path[0] == '/' ? AT_FDCWD : base;
		if (path[0] == 0) {
			if (nr != SYS_fchmodat2 || !(flags & AT_EMPTY_PATH))
				err = ENOENT;
			else if ((target = fcntl(base, F_DUPFD_CLOEXEC, 0)) < 0)
				err = EPERM;
		} else {
			int o = O_PATH | O_CLOEXEC | ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0);
			target = openat(at, path, o);
			if (target < 0)
				err = errno;
		}
	}
	if (base >= 0)
		close(base);
	if (err) {
		if (target >= 0)
			close(target);
		return -err;
	}
	return target;
}

// agentls_decide_chmod answers a chmod-family call with S_ISGID (and not
// S_ISUID) in its mode: the errno to answer, 0 for success.
int agentls_decide_chmod(struct seccomp_notif *req, int listener) {
	int nr = req->data.nr;
	if (nr != SYS_chmod && nr != SYS_fchmod && nr != SYS_fchmodat && nr != SYS_fchmodat2)
		return EPERM;
	unsigned mode = (unsigned)(nr == SYS_chmod || nr == SYS_fchmod ? req->data.args[1] : req->data.args[2]) & 07777;
	unsigned flags = nr == SYS_fchmodat2 ? (unsigned)req->data.args[3] : 0;
	if (mode & S_ISUID)
		return EPERM; // the filter refuses these before they get here
	if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return EINVAL;
	char path[PATH_MAX];
	path[0] = 0;
	if (nr != SYS_fchmod) {
		int e = agentls_read_path(req->pid, nr == SYS_chmod ? req->data.args[0] : req->data.args[1], path, sizeof path);
		if (e)
			return e;
	}
	int target = agentls_chmod_target(req, listener, path, flags);
	if (target < 0)
		return -target;
	struct stat st;
	int err = 0;
	if (fstat(target, &st) != 0)
		err = EPERM;
	else if (!S_ISDIR(st.st_mode))
		err = EPERM; // a set-group-ID file: refused, as everywhere
	else if (st.st_uid != geteuid())
		err = EPERM; // without capabilities the caller may change only its own
	else {
		// As the kernel does for a caller without CAP_FSETID.
		if (!agentls_in_groups(st.st_gid))
			mode &= ~(unsigned)S_ISGID;
		char link[64];
		snprintf(link, sizeof link, "/proc/self/fd/%d", target);
		if (chmod(link, mode) != 0)
			err = errno;
	}
	close(target);
	return err;
}

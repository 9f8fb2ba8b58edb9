#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

// The supervisor's side of connect and bind (notify_linux.c): the socket
// roots, the registry of the sockets sandboxed commands bound, and the
// calls themselves, made on the supervisor's duplicate of the caller's
// socket.
//
// A path inside the roots is not enough to connect: the command may make,
// link and rename files there, and a host socket (tmux's, an SSH agent's)
// hard-linked, renamed or bind-mounted into the workspace has a path
// inside, as has one in a directory moved into the workspace. So the
// supervisor connects only to a socket file whose identity (device, inode
// and birth time) is in the registry, which it and the supervisors of the
// session's other commands fill with every socket they bind; or, where the
// user allowed it, to any socket below the project root. The command
// cannot make, link or rename a socket file into a directory (its
// Landlock rules lack the right to, landlock_linux.go), so the name the
// supervisor just bound in the directory it holds open is still its
// socket when it records it.

#include "sandbox_linux.h"
#include "syscalls_linux.h"

// One socket in the registry: the socket file's device and inode, and the
// birth time (or, on a filesystem without one, the modification time) that
// tells a reused inode number apart. Records are appended whole by each
// supervisor with one write to the shared, O_APPEND descriptor; the
// registry is bounded (a bind past the bound is refused with ENOSPC).
struct agentls_sock_id {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
	int64_t sec;
	uint32_t nsec, stamp; // stamp: 1 birth time, 2 modification time
};
#define NOTIFY_MAX_SOCKETS 65536

// agentls_in_roots: is real (an absolute path without symlinks) at or
// below one of the socket roots (kind 0), or of the roots marked with
// kind ('+': where any socket may be reached)?
static int agentls_in_roots(const char *real, char kind) {
	for (size_t off = 0; off < agentls_roots_len;) {
		const char *r = agentls_roots + off;
		size_t n = strlen(r);
		off += n + 1;
		if (kind) {
			if (n == 0 || r[0] != kind)
				continue;
			r++;
			n--;
		}
		if (n == 0 || r[0] != '/')
			continue;
		if (n == 1)
			return 1; // "/"
		if (strncmp(real, r, n) == 0 && (real[n] == 0 || real[n] == '/'))
			return 1;
	}
	return 0;
}

// agentls_fd_inside: the real path of descriptor fd lies inside a root
// of the kind (see agentls_in_roots).
static int agentls_fd_inside(int fd, char kind) {
	char link[64], real[PATH_MAX + 1];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, real, PATH_MAX);
	if (n <= 0 || real[0] != '/')
		return 0;
	real[n] = 0;
	return agentls_in_roots(real, kind);
}

// agentls_sock_identity is the identity of the socket file name in dfd
// (flags as statx's); -1 when it is not a socket file.
static int agentls_sock_identity(int dfd, const char *name, int flags, struct agentls_sock_id *id) {
	struct statx sx;
	memset(id, 0, sizeof *id);
	if (statx(dfd, name, flags | AT_STATX_SYNC_AS_STAT, STATX_TYPE | STATX_INO | STATX_MTIME | STATX_BTIME, &sx) != 0)
		return -1;
	if ((sx.stx_mask & (STATX_TYPE | STATX_INO)) != (STATX_TYPE | STATX_INO) || !S_ISSOCK(sx.stx_mode))
		return -1;
	id->dev_major = sx.stx_dev_major;
	id->dev_minor = sx.stx_dev_minor;
	id->ino = sx.stx_ino;
	if (sx.stx_mask & STATX_BTIME) {
		id->sec = sx.stx_btime.tv_sec;
		id->nsec = sx.stx_btime.tv_nsec;
		id->stamp = 1;
	} else if (sx.stx_mask & STATX_MTIME) {
		id->sec = sx.stx_mtime.tv_sec;
		id->nsec = sx.stx_mtime.tv_nsec;
		id->stamp = 2;
	}
	return 0;
}

// agentls_registered: is id in the registry? Read in large blocks: a
// full registry (2 MiB) is scanned in about 0.2 ms.
static int agentls_registered(const struct agentls_sock_id *id) {
	static struct agentls_sock_id recs[2048];
	if (agentls_registry < 0)
		return 0;
	for (off_t off = 0; off < (off_t)(NOTIFY_MAX_SOCKETS + 1024) * (off_t)sizeof recs[0];) {
		ssize_t n = pread(agentls_registry, recs, sizeof recs, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof recs[0])
			return 0;
		size_t k = (size_t)n / sizeof recs[0];
		for (size_t i = 0; i < k; i++)
			if (memcmp(&recs[i], id, sizeof *id) == 0)
				return 1;
		off += (off_t)(k * sizeof recs[0]);
	}
	return 0;
}

// agentls_register records the socket file name in dfd, which this
// supervisor just bound. Returns the errno to answer.
static int agentls_register(int dfd, const char *name) {
	struct agentls_sock_id id;
	struct stat st;
	if (agentls_registry < 0 || agentls_sock_identity(dfd, name, AT_SYMLINK_NOFOLLOW, &id) != 0 || fstat(agentls_registry, &st) != 0)
		return EPERM;
	if (st.st_size >= (off_t)NOTIFY_MAX_SOCKETS * (off_t)sizeof id)
		return ENOSPC;
	ssize_t r;
	do
		r = write(agentls_registry, &id, sizeof id);
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)sizeof id ? 0 : EPERM;
}

// agentls_connect connects sock to the socket at path, exactly the inode
// checked: open follows symlinks as connect does, and the connect goes
// through the descriptor. A blocking connect waits while the server's
// backlog is full; that wait is left to a child, which answers itself:
// the supervisor must keep serving signals and other calls. Returns the
// errno to answer, or -1 when the child answers.
int agentls_connect(uint64_t id, int sock, const char *path) {
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? ENOENT : EPERM;
	struct stat st;
	struct agentls_sock_id sid;
	int err = 0;
	if (!agentls_fd_inside(fd, 0))
		err = EPERM;
	else if (fstat(fd, &st) != 0)
		err = EPERM;
	else if (!S_ISSOCK(st.st_mode))
		err = ECONNREFUSED;
	else if (agentls_sock_identity(fd, "", AT_EMPTY_PATH, &sid) != 0)
		err = EPERM;
	else if (!agentls_registered(&sid) && !agentls_fd_inside(fd, '+'))
		err = EPERM; // made outside the sandbox, or reached by a second name
	if (err) {
		close(fd);
		return err;
	}
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d", fd);
	socklen_t len = offsetof(struct sockaddr_un, sun_path) + strlen(sa.sun_path) + 1;
	// A blocking socket is tried without blocking first (it is not
	// connected yet, so nothing else of the caller's sees the flag);
	// only a full backlog sends the connect to a child.
	int fl = fcntl(sock, F_GETFL);
	if (fl < 0) {
		close(fd);
		return EPERM;
	}
	if (!(fl & O_NONBLOCK) && fcntl(sock, F_SETFL, fl | O_NONBLOCK) != 0) {
		close(fd);
		return EPERM;
	}
	int r = connect(sock, (struct sockaddr *)&sa, len);
	err = r == 0 ? 0 : errno;
	if (!(fl & O_NONBLOCK))
		fcntl(sock, F_SETFL, fl);
	if (err == EAGAIN && !(fl & O_NONBLOCK)) {
		pid_t pid = fork();
		if (pid == 0) {
			r = connect(sock, (struct sockaddr *)&sa, len);
			agentls_answer(id, r == 0 ? 0 : errno);
			_exit(0);
		}
		err = pid > 0 ? -1 : EPERM;
	}
	close(fd);
	return err;
}

// agentls_plain: no component of the absolute path dir is "." or "..",
// so building it below the tmpfs of agentls_bind_exact never leaves it.
static int agentls_plain(const char *dir) {
	for (const char *c = dir; *c;) {
		while (*c == '/')
			c++;
		size_t n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += n;
	}
	return 1;
}

// agentls_bind_exact binds sock to path itself, so that the socket's
// address (what getsockname reports, what Go's listener dials and unlinks)
// is the caller's, and yet lands in the directory checked, dfd: a child
// enters a mount namespace of its own, builds the directories of path on a
// tmpfs with dfd mounted at the last one, chroots there and binds. Nothing
// of the path is looked up in a tree the command can change. Needs the
// capabilities of the user namespace the supervisor owns; returns -1
// where they are missing (no namespace) or the path has "." or ".."
// components, else the errno to answer.
static int agentls_bind_exact(int sock, const char *path, const char *dir, int dfd) {
	static int unavailable;
	if (unavailable || !agentls_plain(dir))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return EPERM;
	if (pid == 0) {
		const char *top = "/tmp";
		char target[PATH_MAX + 16];
		// A copy of the checked directory's mount, made in the
		// namespace it belongs to; it can then be attached in ours.
		int tree = syscall(SYS_open_tree, dfd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		if (tree < 0 || unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
			_exit(255);
		if (mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0700") != 0)
			_exit(255);
		snprintf(target, sizeof target, "%s%s", top, dir);
		for (char *p = target + strlen(top) + 1; *p; p++) {
			if (*p != '/')
				continue;
			*p = 0;
			if (mkdir(target, 0700) != 0 && errno != EEXIST)
				_exit(EPERM);
			*p = '/';
		}
		if (mkdir(target, 0700) != 0 && errno != EEXIST)
			_exit(EPERM);
		if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) != 0 || chroot(top) != 0 || chdir("/") != 0)
			_exit(EPERM);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
		socklen_t len = offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1;
		_exit(bind(sock, (struct sockaddr *)&sa, len) == 0 ? 0 : errno);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EPERM;
	if (!WIFEXITED(status))
		return EPERM;
	if (WEXITSTATUS(status) == 255) {
		unavailable = 1;
		return -1;
	}
	return WEXITSTATUS(status);
}

// agentls_bind binds sock to path in the directory checked: the parent is
// opened (following symlinks, as bind does) and checked, then the socket
// is bound there by agentls_bind_exact and recorded in the registry.
// Without the capabilities for that it is bound to the bare name with the
// checked directory as the cwd; the socket's address is then that name,
// relative (a path through /proc/self/fd would be reported instead, and
// mean nothing to the caller).
int agentls_bind(int sock, const char *path) {
	const char *slash = strrchr(path, '/');
	const char *base = slash + 1;
	if (*base == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return EPERM;
	size_t dlen = slash == path ? 1 : (size_t)(slash - path);
	char dir[PATH_MAX];
	if (dlen >= sizeof dir)
		return ENAMETOOLONG;
	memcpy(dir, path, dlen);
	dir[dlen] = 0;
	int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT || errno == ENOTDIR ? errno : EPERM;
	int err = 0;
	if (agentls_registry < 0 || !agentls_fd_inside(dfd, 0) || strcmp(dir, "/") == 0) {
		err = EPERM;
	} else if ((err = agentls_bind_exact(sock, path, dir, dfd)) >= 0) {
	} else if (fchdir(dfd) != 0) {
		err = EPERM;
	} else {
		err = 0;
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		snprintf(sa.sun_path, sizeof sa.sun_path, "%s", base);
		socklen_t len = offsetof(struct sockaddr_un, sun_path) + strlen(base) + 1;
		if (bind(sock, (struct sockaddr *)&sa, len) != 0)
			err = errno;
		if (chdir("/") != 0 && !err)
			err = EPERM;
	}
	if (err == 0)
		err = agentls_register(dfd, base);
	close(dfd);
	return err;
}


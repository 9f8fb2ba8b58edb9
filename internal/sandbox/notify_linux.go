package sandbox

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <unistd.h>

// Unix sockets with the network off (see doc.go): connect and bind reach
// the seccomp filter's user-notification listener, held by the process
// that supervises the command (PID 1 of its namespace, or the subreaper;
// an ancestor of everything the command starts). For each call it copies
// the address out of the caller once, resolves it itself, checks that it
// lies inside a socket root, and performs the call on a duplicate of the
// caller's socket, so what it checked is exactly what it connects to or
// binds in; the caller gets the result. The caller is never let through
// to make the call itself (no SECCOMP_USER_NOTIF_FLAG_CONTINUE): another
// of its threads could change the address after the check. Any failure
// of the supervisor answers EPERM; should it be gone, the kernel answers
// ENOSYS. Relative and abstract addresses are refused: the caller's cwd
// cannot be resolved safely from here (/proc is the host's, the PIDs in a
// notification are the namespace's), and abstract names belong to no
// directory.
//
// The listener comes from the helper: it loads the filter with
// SECCOMP_FILTER_FLAG_NEW_LISTENER and sends the listener and the socket
// registry, with the socket roots, in one message over a socketpair made
// before it was forked; the command never holds either.
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

#include "syscalls_linux.h"

// The largest hand-over message: the socket roots, NUL-separated. A root
// that starts with '+' is the project root where the user allows any
// socket to be reached (allow_project_sockets).
#define NOTIFY_MAX_ROOTS 65536

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

// In the helper: its end of the hand-over socketpair, -1 without one.
int agentls_notify_sock = -1;

// The supervisor's state: the listener once handed over, the socket roots,
// and the notification buffers sized for this kernel.
static int agentls_listener = -1;
static int agentls_registry = -1;
static char *agentls_roots;
static size_t agentls_roots_len;
static struct seccomp_notif *agentls_req;
static struct seccomp_notif_resp *agentls_resp;
static size_t agentls_req_size, agentls_resp_size;

// agentls_notify_pair makes the hand-over socketpair before the fork of
// the helper: *sup_end stays with the supervisor, the other end is the
// helper's (agentls_notify_take). Failure leaves both -1: nothing is
// handed over and connect and bind stay denied.
void agentls_notify_pair(int *sup_end, int *helper_end) {
	int sv[2];
	*sup_end = *helper_end = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return;
	*sup_end = sv[0];
	*helper_end = sv[1];
}

// agentls_notify_handover sends the listener, the socket registry (-1:
// none) and the socket roots to the supervisor, then closes the listener
// and the helper's end. 0 on success.
int agentls_notify_handover(int listener, int registry, const char *roots, size_t len) {
	int fd = agentls_notify_sock;
	agentls_notify_sock = -1;
	if (fd < 0) {
		close(listener);
		errno = ENOTCONN;
		return -1;
	}
	int fds[2] = {listener, registry};
	int nfds = registry >= 0 ? 2 : 1;
	char cbuf[CMSG_SPACE(sizeof fds)];
	memset(cbuf, 0, sizeof cbuf);
	struct iovec iov = {(void *)roots, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = CMSG_SPACE(nfds * sizeof(int))};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	ssize_t r;
	do
		r = sendmsg(fd, &m, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	int e = errno;
	close(listener);
	close(fd);
	errno = e;
	return r == (ssize_t)len ? 0 : -1;
}

// agentls_notify_close_helper_end closes the helper's end where nothing
// is handed over (an unconfined command, a filter without notifications).
void agentls_notify_close_helper_end(void) {
	if (agentls_notify_sock >= 0)
		close(agentls_notify_sock);
	agentls_notify_sock = -1;
}

// agentls_notify_accept takes the one hand-over message: the listener,
// the registry and the roots. Anything malformed is dropped, and connect
// and bind then stay denied (the kernel answers ENOSYS once the listener
// is closed). Without a registry, binds are refused and connects reach
// only what allow_project_sockets allows.
static void agentls_notify_accept(int sock) {
	static char buf[NOTIFY_MAX_ROOTS];
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = {buf, sizeof buf};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	ssize_t n;
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	int listener = -1, registry = -1;
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		int fds[2] = {-1, -1};
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(c), (k > 2 ? 2 : k) * sizeof(int));
		if (k >= 1 && k <= 2 && listener < 0) {
			listener = fds[0];
			registry = k == 2 ? fds[1] : -1;
		} else {
			for (size_t i = 0; i < k && i < 2; i++)
				close(fds[i]);
		}
	}
	if (listener < 0)
		return;
	// Appends from every supervisor of the session go whole to the end.
	if (registry >= 0 && fcntl(registry, F_SETFL, fcntl(registry, F_GETFL) | O_APPEND) != 0) {
		close(registry);
		registry = -1;
	}
	struct seccomp_notif_sizes sizes;
	int ok = n > 0 && !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && buf[n - 1] == 0 &&
		syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0;
	if (ok) {
		agentls_req_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ? sizes.seccomp_notif : sizeof(struct seccomp_notif);
		agentls_resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ? sizes.seccomp_notif_resp : sizeof(struct seccomp_notif_resp);
		agentls_req = malloc(agentls_req_size);
		agentls_resp = malloc(agentls_resp_size);
		agentls_roots = malloc(n);
		ok = agentls_req && agentls_resp && agentls_roots;
	}
	if (!ok) {
		close(listener);
		if (registry >= 0)
			close(registry);
		return;
	}
	memcpy(agentls_roots, buf, n);
	agentls_roots_len = n;
	agentls_listener = listener;
	agentls_registry = registry;
}

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

static int agentls_valid(uint64_t id) {
	return ioctl(agentls_listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

static void agentls_answer(uint64_t id, int err) {
	memset(agentls_resp, 0, agentls_resp_size);
	agentls_resp->id = id;
	agentls_resp->error = err ? -err : 0;
	ioctl(agentls_listener, SECCOMP_IOCTL_NOTIF_SEND, agentls_resp);
}

// agentls_connect connects sock to the socket at path, exactly the inode
// checked: open follows symlinks as connect does, and the connect goes
// through the descriptor. A blocking connect waits while the server's
// backlog is full; that wait is left to a child, which answers itself:
// the supervisor must keep serving signals and other calls. Returns the
// errno to answer, or -1 when the child answers.
static int agentls_connect(uint64_t id, int sock, const char *path) {
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
static int agentls_bind(int sock, const char *path) {
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

// agentls_decide works out one notification; returns the errno to answer
// (0: success), or -1 when the answer is given elsewhere.
int agentls_decide_chmod(struct seccomp_notif *req, int listener);

static int agentls_decide(struct seccomp_notif *req) {
	int nr = req->data.nr;
	if (nr != SYS_connect && nr != SYS_bind)
		return agentls_decide_chmod(req, agentls_listener); // chmod_notify_linux.go
	int fd = (int)req->data.args[0];
	uint64_t addr = req->data.args[1];
	uint64_t addrlen = req->data.args[2] & 0xffffffffULL;
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	// Unnamed (autobind), abstract and malformed addresses: refused.
	if (addrlen <= off + 1 || addrlen > sizeof(struct sockaddr_un))
		return EPERM;
	char sab[sizeof(struct sockaddr_un) + 1];
	memset(sab, 0, sizeof sab);
	struct iovec local = {sab, addrlen}, remote = {(void *)(uintptr_t)addr, addrlen};
	if (process_vm_readv(req->pid, &local, 1, &remote, 1, 0) != (ssize_t)addrlen)
		return EPERM;
	if (!agentls_valid(req->id))
		return EPERM;
	struct sockaddr_un *sa = (struct sockaddr_un *)sab;
	const char *path = sab + off;
	if (sa->sun_family != AF_UNIX || path[0] != '/')
		return EPERM;
	int pidfd = syscall(SYS_pidfd_open, req->pid, PIDFD_THREAD);
	if (pidfd < 0 && errno == EINVAL)
		pidfd = syscall(SYS_pidfd_open, req->pid, 0);
	if (pidfd < 0)
		return EPERM;
	// The thread could have died and its id been reused before the
	// pidfd was taken: only a notification still pending proves the
	// pidfd is the caller's.
	if (!agentls_valid(req->id)) {
		close(pidfd);
		return EPERM;
	}
	int sock = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	int e = errno;
	close(pidfd);
	if (sock < 0)
		return e == EBADF ? EBADF : EPERM;
	int domain = 0, type = 0;
	socklen_t l1 = sizeof domain, l2 = sizeof type;
	int err;
	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &l1) != 0 || getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &l2) != 0)
		err = errno == ENOTSOCK ? ENOTSOCK : EPERM;
	else if (domain != AF_UNIX || (type != SOCK_STREAM && type != SOCK_SEQPACKET))
		err = EPERM;
	else if (nr == SYS_connect)
		err = agentls_connect(req->id, sock, path);
	else
		err = agentls_bind(sock, path);
	close(sock);
	return err;
}

// agentls_notify_serve answers one pending notification.
static void agentls_notify_serve(void) {
	memset(agentls_req, 0, agentls_req_size);
	if (ioctl(agentls_listener, SECCOMP_IOCTL_NOTIF_RECV, agentls_req) != 0)
		return; // the caller went away (ENOENT), or a signal interrupted
	int err = agentls_decide(agentls_req);
	if (err >= 0)
		agentls_answer(agentls_req->id, err);
}

// agentls_notify_poll is the supervisor's wait: it serves the hand-over
// socket (*handover, closed and set to -1 after its one message) and the
// listener until sigfd is readable, then returns.
void agentls_notify_poll(int sigfd, int *handover) {
	for (;;) {
		struct pollfd fds[3] = {{sigfd, POLLIN, 0}, {*handover, POLLIN, 0}, {agentls_listener, POLLIN, 0}};
		if (poll(fds, 3, -1) < 0)
			continue;
		if (fds[1].revents) {
			if (fds[1].revents & POLLIN)
				agentls_notify_accept(*handover);
			close(*handover);
			*handover = -1;
		}
		if (fds[2].revents & POLLIN)
			agentls_notify_serve();
		else if (fds[2].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			// No process uses the filter any more.
			close(agentls_listener);
			agentls_listener = -1;
		}
		if (fds[0].revents)
			return;
	}
}
*/
import "C"

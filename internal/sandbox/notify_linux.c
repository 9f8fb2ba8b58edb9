#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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
// The checks and the calls themselves, and the registry of the sockets
// sandboxed commands bound, are in notify_sock_linux.c.

#include "sandbox_linux.h"
#include "syscalls_linux.h"

// The largest hand-over message: the socket roots, NUL-separated. A root
// that starts with '+' is the project root where the user allows any
// socket to be reached (allow_project_sockets).
#define NOTIFY_MAX_ROOTS 65536

// In the helper: its end of the hand-over socketpair, -1 without one.
int agentls_notify_sock = -1;

// The supervisor's state: the listener once handed over, the socket roots,
// and the notification buffers sized for this kernel.
int agentls_listener = -1;
int agentls_registry = -1;
char *agentls_roots;
size_t agentls_roots_len;
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

static int agentls_valid(uint64_t id) {
	return ioctl(agentls_listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void agentls_answer(uint64_t id, int err) {
	memset(agentls_resp, 0, agentls_resp_size);
	agentls_resp->id = id;
	agentls_resp->error = err ? -err : 0;
	ioctl(agentls_listener, SECCOMP_IOCTL_NOTIF_SEND, agentls_resp);
}

// agentls_decide works out one notification; returns the errno to answer
// (0: success), or -1 when the answer is given elsewhere.
static int agentls_decide(struct seccomp_notif *req) {
	int nr = req->data.nr;
	if (nr != SYS_connect && nr != SYS_bind)
		return agentls_decide_chmod(req, agentls_listener); // chmod_notify_linux.c
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
	// TCP and UDP in the session's own network namespace (netns_linux.c).
	int inet = agentls_net_joined && (sa->sun_family == AF_INET || sa->sun_family == AF_INET6);
	if (!inet && (sa->sun_family != AF_UNIX || path[0] != '/'))
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
	else if (inet)
		err = domain == sa->sun_family ? agentls_inet_call(req->id, nr, sock, domain, sab, (unsigned)addrlen) : EPERM;
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
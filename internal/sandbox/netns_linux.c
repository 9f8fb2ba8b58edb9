#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

// The loopback network the commands of one agent session share
// (netns_linux.go): a network namespace with only lo, up, owned by a user
// namespace of its own that maps the agent's ids onto themselves. agent-ls
// makes both in a child that shares its memory and descriptors, keeps
// their descriptors and no process: the namespaces live exactly as long
// as agent-ls holds them or a command runs in them.
//
// The helper joins them first thing (agentls_join_session_net, from the
// constructor), then makes its user, mount and PID namespaces as always,
// the user namespace a child of the session's. The command so has no
// capability over the session's network (its own user namespace is
// below the one that owns it) and drops even those it had in its own.
// In the session's namespace the filter lets the command make TCP and
// UDP sockets; their connect and bind go to the supervisor like those of
// Unix sockets (agentls_inet_call), which checks that the socket lives
// in the session's network, so nothing reaches the host's.

#include "sandbox_linux.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

// Set in the helper before the supervisor is forked: both are in the
// session's network namespace.
int agentls_net_joined;

struct agentls_net_child {
	int user, net, err;
	const char *step;
};

// agentls_lo_up brings lo up in this process's network namespace.
static int agentls_lo_up(void) {
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	int r = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (r == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	int e = errno;
	close(s);
	errno = e;
	return r;
}

// The child: fresh user and network namespaces, our ids mapped, lo up,
// and both namespaces opened into the descriptor table it shares with
// agent-ls.
static int agentls_net_child_main(void *arg) {
	struct agentls_net_child *c = arg;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	const char *step = "unshare(CLONE_NEWUSER|CLONE_NEWNET)";
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0 || agentls_map_ids(uid, gid, &step) != 0)
		goto fail;
	step = "bringing lo up";
	if (agentls_lo_up() != 0)
		goto fail;
	step = "opening the namespaces";
	c->user = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	if (c->user < 0)
		goto fail;
	c->net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (c->net < 0)
		goto fail;
	_exit(0);
fail:
	c->err = errno ? errno : EINVAL;
	c->step = step;
	_exit(1);
}

// agentls_new_session_net makes a session's user and network namespaces
// and returns their descriptors (close-on-exec) in *user and *net: 0, or
// the errno of the step *step names.
int agentls_new_session_net(int *user, int *net, const char **step) {
	struct agentls_net_child c = {-1, -1, 0, ""};
	int err = agentls_vm_child(agentls_net_child_main, &c, CLONE_FILES, step);
	if (err == 0 && c.err != 0) {
		err = c.err;
		*step = c.step;
	}
	if (err != 0) {
		if (c.user >= 0)
			close(c.user);
		if (c.net >= 0)
			close(c.net);
		return err;
	}
	*user = c.user;
	*net = c.net;
	return 0;
}

struct agentls_listen_child {
	int user, net, fd, port, err;
	const char *step;
};

// The child that makes a listening socket on 127.0.0.1 of the session's
// network: it joins the session's user namespace (allowed: it shares no
// filesystem information and is no thread of agent-ls's, whatever
// memory it shares), then the network, and leaves the socket in the
// descriptor table it shares with agent-ls.
static int agentls_listen_child_main(void *arg) {
	struct agentls_listen_child *c = arg;
	const char *step = "joining the session's user namespace";
	if (setns(c->user, CLONE_NEWUSER) != 0)
		goto fail;
	step = "joining the session's network namespace";
	if (setns(c->net, CLONE_NEWNET) != 0)
		goto fail;
	step = "listening on 127.0.0.1 in the session's network";
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		goto fail;
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof sa;
	if (bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 128) != 0 ||
		getsockname(s, (struct sockaddr *)&sa, &len) != 0) {
		int e = errno;
		close(s);
		errno = e;
		goto fail;
	}
	c->fd = s;
	c->port = ntohs(sa.sin_port);
	_exit(0);
fail:
	c->err = errno ? errno : EINVAL;
	c->step = step;
	_exit(1);
}

// agentls_session_net_listen makes a TCP socket listening on 127.0.0.1
// (a free port) in the session's network namespace, given the
// descriptors of its user and network namespaces: agent-ls accepts on it
// from outside, and the session's commands reach it as any server of
// their loopback. *fd (close-on-exec) and *port, or the errno of the
// step *step names.
int agentls_session_net_listen(int user, int net, int *fd, int *port, const char **step) {
	struct agentls_listen_child c = {user, net, -1, 0, 0, ""};
	int err = agentls_vm_child(agentls_listen_child_main, &c, CLONE_FILES, step);
	if (err == 0 && c.err != 0) {
		err = c.err;
		*step = c.step;
	}
	if (err != 0) {
		if (c.fd >= 0)
			close(c.fd);
		return err;
	}
	*fd = c.fd;
	*port = c.port;
	return 0;
}

// agentls_join_session_net joins the session's user and network
// namespaces when the plan (descriptor 3) begins with the record that
// names their descriptors ('J', two little-endian uint32s); the plan is
// only peeked at, agentls_run_plan reads it whole later. 0 when joined or
// when the plan names none; -1 with errno set and *step naming what
// failed.
int agentls_join_session_net(const char **step) {
	unsigned char rec[13];
	if (pread(3, rec, sizeof rec, 0) != (ssize_t)sizeof rec || rec[0] != 'J' ||
		(rec[1] | rec[2] << 8 | rec[3] << 16 | (uint32_t)rec[4] << 24) != 8)
		return 0;
	int user = (int)(rec[5] | rec[6] << 8 | rec[7] << 16 | (uint32_t)rec[8] << 24);
	int net = (int)(rec[9] | rec[10] << 8 | rec[11] << 16 | (uint32_t)rec[12] << 24);
	*step = "joining the session's user namespace";
	if (user < 4 || setns(user, CLONE_NEWUSER) != 0)
		return -1;
	*step = "joining the session's network namespace";
	if (net < 4 || setns(net, CLONE_NEWNET) != 0)
		return -1;
	close(user);
	close(net);
	agentls_net_joined = 1;
	return 0;
}

// agentls_netns_cookie is the cookie of the network namespace sock lives
// in; 0 where the kernel cannot tell (before Linux 5.14).
static uint64_t agentls_netns_cookie(int sock) {
	uint64_t cookie = 0;
	socklen_t len = sizeof cookie;
	if (getsockopt(sock, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) != 0)
		return 0;
	return cookie;
}

// agentls_in_session_net: does sock live in the session's network
// namespace, the supervisor's own? A TCP or UDP socket another process
// made outside it and passed over a Unix socket would otherwise reach the
// host's network through the supervisor. Where the kernel has no
// namespace cookies the socket's family alone is checked: passing one
// takes a command with the network on at the other end.
static int agentls_in_session_net(int sock) {
	static uint64_t own;
	static int asked;
	if (!asked) {
		int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s >= 0) {
			own = agentls_netns_cookie(s);
			close(s);
		}
		asked = 1;
	}
	uint64_t c = agentls_netns_cookie(sock);
	return own == 0 || c == own;
}

// agentls_inet_call makes the connect (nr SYS_connect) or bind of the
// TCP or UDP socket sock, domain its family, to the address copied out of
// the caller (sa, len bytes): only in the session's network namespace.
// A blocking connect is left to a child, which answers itself, so that
// the supervisor keeps serving. Returns the errno to answer, or -1 when
// the child answers.
int agentls_inet_call(uint64_t id, int nr, int sock, int domain, const void *sa, unsigned len) {
	if (!agentls_net_joined || (domain != AF_INET && domain != AF_INET6))
		return EPERM;
	if (!agentls_in_session_net(sock))
		return EPERM;
	if (nr != SYS_connect)
		return bind(sock, sa, len) == 0 ? 0 : errno;
	int fl = fcntl(sock, F_GETFL);
	if (fl < 0)
		return EPERM;
	if (fl & O_NONBLOCK)
		return connect(sock, sa, len) == 0 ? 0 : errno;
	pid_t pid = fork();
	if (pid < 0)
		return EPERM;
	if (pid == 0) {
		int r = connect(sock, sa, len);
		agentls_answer(id, r == 0 ? 0 : errno);
		_exit(0);
	}
	return -1;
}

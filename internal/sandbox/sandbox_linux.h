// What the sandbox helper's C files share. The helper's work runs in C
// from a constructor (nsenter_linux.c), before the Go runtime starts;
// cgo compiles every *_linux.c file of the package and links it into each
// binary that imports it (agent-ls and agent-ls-sandbox). The Go side
// writes the plan (plan_linux.go) that the C carries out; the C functions
// Go calls are the namespace probe (probe_ns_linux.go) and the making of a
// session's network namespace (netns_cgo_linux.go).
// `make test-c` compiles each file alone with every warning an error.
#ifndef AGENTLS_SANDBOX_LINUX_H
#define AGENTLS_SANDBOX_LINUX_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

struct seccomp_notif;

// nsenter_linux.c: entering the namespaces. -1: not asked; 0: in a fresh
// user and mount namespace; >0: the errno of the step named by
// agentls_ns_step.
extern int agentls_ns_errno;
extern const char *agentls_ns_step;
// The namespace probe: the same steps in a child sharing this process's
// memory; 0, or the errno of the step it names.
int agentls_probe_namespaces(int *pidns, const char **step);

// nsenter_linux.c: writing a file whole; mapping our ids onto themselves
// in a fresh user namespace; running a function in a child that shares
// this process's memory (flags adds to CLONE_VM | CLONE_VFORK).
int agentls_write(const char *path, const char *s);
int agentls_map_ids(uid_t uid, gid_t gid, const char **step);
int agentls_vm_child(int (*fn)(void *), void *arg, int flags, const char **step);

// netns_linux.c: the network namespace a session's commands share. Go
// makes it (agentls_new_session_net: 0, or the errno of the step it
// names); the helper joins it before its own namespaces; the supervisor
// makes the connect and bind of TCP and UDP sockets there (the errno to
// answer, -1 when a child answers).
extern int agentls_net_joined;
int agentls_new_session_net(int *user, int *net, const char **step);
int agentls_join_session_net(const char **step);
int agentls_session_net_listen(int user, int net, int *fd, int *port, const char **step);
int agentls_inet_call(uint64_t id, int nr, int sock, int domain, const void *sa, unsigned len);

// reaper_linux.c: the processes that supervise the command.
extern int agentls_supervisor;
extern struct timespec agentls_t_start, agentls_t_namespaces, agentls_t_forked;
extern int agentls_sup_errno;
extern const char *agentls_sup_step;
void agentls_block_signals(void);
void agentls_start_pid_init(void);
void agentls_start_reaper(void);

// exec_plan_linux.c: carrying out the plan and exec'ing the command.
void agentls_run_plan(int in_ns);

// nosuid_linux.c: the nosuid, read-only mounts and the writable roots,
// and the bind that sets one mount attribute (the read-only mounts of
// exec_plan_linux.c use it too).
int agentls_nosuid_roots(const unsigned char *buf, size_t len, char **failed);
int agentls_bind_flag(const char *src, const char *dst, int open_flags, uint64_t attr, unsigned long ms_flag);

// pids_exec_linux.c: the process limit.
int agentls_limit_processes(const unsigned char *buf, size_t len, const char **step);

// notify_linux.c: the supervisor's seccomp user notifications, and the
// hand-over of the listener from the helper.
extern int agentls_notify_sock;
void agentls_notify_pair(int *sup_end, int *helper_end);
int agentls_notify_handover(int listener, int registry, const char *roots, size_t len);
void agentls_notify_close_helper_end(void);
void agentls_notify_poll(int sigfd, int *handover);

// notify_linux.c and notify_sock_linux.c: the supervisor's state once the
// helper handed the listener over (the listener, the socket registry, -1
// for none, and the NUL-separated socket roots), the answer to a
// notification, and the connect and bind the supervisor makes for the
// caller (each returns the errno to answer; connect -1 when a child it
// forked answers instead).
extern int agentls_listener, agentls_registry;
extern char *agentls_roots;
extern size_t agentls_roots_len;
void agentls_answer(uint64_t id, int err);
int agentls_connect(uint64_t id, int sock, const char *path);
int agentls_bind(int sock, const char *path);

// chmod_notify_linux.c: set-group-ID on directories.
int agentls_decide_chmod(struct seccomp_notif *req, int listener);

#endif

// Syscall numbers and flags the sandbox's C code needs (nsenter_linux.c,
// exec_plan_linux.c, nosuid_linux.c, notify_linux.c), and what their
// mounts share, for C libraries and kernel headers
// older than the kernels that run it; the numbers are the same on every
// architecture since Linux 5.1.
#ifndef AGENTLS_SYSCALLS_LINUX_H
#define AGENTLS_SYSCALLS_LINUX_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x4
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x1
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_GET_NOTIF_SIZES
#define SECCOMP_GET_NOTIF_SIZES 3
#endif

// The argument of mount_setattr.
struct agentls_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

// agentls_move_tree mounts the detached tree fd (open_tree with
// OPEN_TREE_CLONE) at dst and closes fd, keeping move_mount's errno.
static inline int agentls_move_tree(int fd, const char *dst) {
	int r = syscall(SYS_move_mount, fd, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

#endif

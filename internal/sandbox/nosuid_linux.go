package sandbox

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "syscalls_linux.h"

#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID 0x2
#endif

// The writable roots mounted nosuid in the helper's mount namespace (the
// plan's 'N' records): a set-user-ID or set-group-ID file there, or a
// file with capabilities, grants nothing to whoever runs it inside the
// sandbox. Every mount of the namespace is made nosuid in place, with one
// recursive mount_setattr from "/": no_new_privs already makes set-ID
// bits grant nothing inside, so nothing is lost, and the writable roots
// stay on the mounts they were on, so a rename from one into another
// (from /tmp into the workspace) works as it does outside. Only a kernel
// without mount_setattr (before 5.12) gets each root bound onto itself
// nosuid instead, which makes each a mount of its own (EXDEV between
// them, as between filesystems). The seccomp filter keeps the command from making such files in
// the first place (seccomp_setid_linux.go), which is what still holds once
// the file is seen from outside, where these mounts do not exist.

struct agentls_nosuid_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static int agentls_nosuid_classic(const char *path) {
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0)
		return -1;
	struct statfs st;
	if (statfs(path, &st) != 0)
		return -1;
	unsigned long keep = MS_RDONLY | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME;
	return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | (st.f_flags & keep), NULL);
}

// agentls_bind_nosuid mounts path onto itself, recursively, nosuid; the
// other flags of each mount stay as they were.
static int agentls_bind_nosuid(const char *path) {
	int fd = syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0 && errno == ENOSYS)
		return agentls_nosuid_classic(path);
	if (fd < 0)
		return -1;
	struct agentls_nosuid_attr attr = {.attr_set = MOUNT_ATTR_NOSUID};
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0) {
		int e = errno;
		close(fd);
		if (e == ENOSYS)
			return agentls_nosuid_classic(path);
		errno = e;
		return -1;
	}
	int r = syscall(SYS_move_mount, fd, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH);
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

// agentls_nosuid_roots mounts every root of the plan's 'N' records
// nosuid. It returns 0, or -1 with errno set and *failed the root.
int agentls_nosuid_roots(const unsigned char *buf, size_t len, char **failed) {
	int any = 0;
	for (size_t off = 0; off < len;) {
		uint32_t n = buf[off + 1] | buf[off + 2] << 8 | buf[off + 3] << 16 | (uint32_t)buf[off + 4] << 24;
		any |= buf[off] == 'N';
		off += 5 + (size_t)n;
	}
	if (!any)
		return 0;
	struct agentls_nosuid_attr all = {.attr_set = MOUNT_ATTR_NOSUID};
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &all, sizeof all) == 0)
		return 0;
	if (errno != ENOSYS) {
		*failed = "/";
		return -1;
	}
	for (size_t off = 0; off < len;) {
		unsigned char tag = buf[off];
		uint32_t n = buf[off + 1] | buf[off + 2] << 8 | buf[off + 3] << 16 | (uint32_t)buf[off + 4] << 24;
		if (tag == 'N') {
			char *p = malloc(n + 1);
			if (!p) {
				errno = ENOMEM;
				return -1;
			}
			memcpy(p, buf + off + 5, n);
			p[n] = 0;
			if (agentls_bind_nosuid(p) != 0) {
				*failed = p;
				return -1;
			}
			free(p);
		}
		off += 5 + (size_t)n;
	}
	return 0;
}
*/
import "C"

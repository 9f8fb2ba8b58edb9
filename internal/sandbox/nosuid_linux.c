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

#include "sandbox_linux.h"
#include "syscalls_linux.h"

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x1
#endif
#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID 0x2
#endif

// The helper's mount namespace is made nosuid and read-only everywhere
// but the writable roots (the plan's 'N' records), which are bound onto
// themselves writable (and nosuid): a set-user-ID or set-group-ID file,
// or a file with capabilities, grants nothing to whoever runs it inside
// the sandbox, and outside the roots chmod, chown, utimes and extended
// attributes, which Landlock does not confine, fail with EROFS. Each root
// is then a mount of its own, so rename(2) from one into another is EXDEV,
// as between filesystems (mv and most tools copy then). A kernel without
// mount_setattr (before 5.12) gets each root bound onto itself nosuid and
// nothing more. The seccomp filter keeps the command from making set-ID
// files in the first place (seccomp_setid_linux.go), which is what still
// holds once the file is seen from outside, where these mounts do not
// exist.

// agentls_bind_classic binds src onto dst, recursively, and remounts the
// bind with ms_flag added and the other flags of the mount as they were.
static int agentls_bind_classic(const char *src, const char *dst, unsigned long ms_flag) {
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
		return -1;
	struct statfs st;
	if (statfs(dst, &st) != 0)
		return -1;
	unsigned long keep = (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME) & ~ms_flag;
	return mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | ms_flag | (st.f_flags & keep), NULL);
}

// agentls_bind_flag mounts src onto dst, recursively, with the mount
// attribute attr (MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID) set on every mount
// of the tree; the other flags of each mount stay as they were. open_flags
// adds AT_SYMLINK_NOFOLLOW to pin a symlink as the link itself. A kernel
// without the new mount API (before 5.12) gets the classic bind and a
// remount with ms_flag, the same flag in mount(2)'s terms.
int agentls_bind_flag(const char *src, const char *dst, int open_flags, uint64_t attr, unsigned long ms_flag) {
	int fd = syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | open_flags);
	if (fd < 0 && errno == ENOSYS)
		return agentls_bind_classic(src, dst, ms_flag);
	if (fd < 0)
		return -1;
	struct agentls_mount_attr set = {.attr_set = attr};
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &set, sizeof set) != 0) {
		int e = errno;
		close(fd);
		if (e == ENOSYS)
			return agentls_bind_classic(src, dst, ms_flag);
		errno = e;
		return -1;
	}
	return agentls_move_tree(fd, dst);
}

// agentls_bind_writable binds the writable root path onto itself with
// its mounts writable again, after agentls_nosuid_roots made every mount
// read-only; nosuid stays. A mount below it that the host made read-only
// keeps its locked flag, and then only the root's own mount is made
// writable.
static int agentls_bind_writable(const char *path) {
	int fd = syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0)
		return -1;
	struct agentls_mount_attr rw = {.attr_clr = MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &rw, sizeof rw) != 0 &&
	    (errno != EPERM || syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &rw, sizeof rw) != 0) && errno != EPERM) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return agentls_move_tree(fd, path);
}

// agentls_nosuid_roots carries out the plan's 'N' records, the writable
// roots (an empty one where there is none: read-only mode). Every mount
// of the namespace is made nosuid and read-only in place, then each root
// is bound onto itself writable: Landlock confines writing contents,
// creating and removing, but not chmod, chown, utimes or extended
// attributes, which a read-only mount refuses (EROFS) everywhere outside
// the roots. The roots come outermost only (a root inside another is
// covered by it), so a rename between two roots on one mount (the
// workspace below /tmp) keeps working. Without mount_setattr (before
// Linux 5.12) each root is bound onto itself nosuid instead, and the rest
// stays as it is. It returns 0, or -1 with errno set and *failed the root.
int agentls_nosuid_roots(const unsigned char *buf, size_t len, char **failed) {
	int any = 0;
	for (size_t off = 0; off < len;) {
		uint32_t n = buf[off + 1] | buf[off + 2] << 8 | buf[off + 3] << 16 | (uint32_t)buf[off + 4] << 24;
		any |= buf[off] == 'N';
		off += 5 + (size_t)n;
	}
	if (!any)
		return 0;
	struct agentls_mount_attr all = {.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY};
	int setattr = syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &all, sizeof all) == 0;
	if (!setattr && errno != ENOSYS) {
		*failed = "/";
		return -1;
	}
	for (size_t off = 0; off < len;) {
		unsigned char tag = buf[off];
		uint32_t n = buf[off + 1] | buf[off + 2] << 8 | buf[off + 3] << 16 | (uint32_t)buf[off + 4] << 24;
		if (tag == 'N' && n > 0) {
			char *p = malloc(n + 1);
			if (!p) {
				errno = ENOMEM;
				return -1;
			}
			memcpy(p, buf + off + 5, n);
			p[n] = 0;
			if ((setattr ? agentls_bind_writable(p) : agentls_bind_flag(p, p, 0, MOUNT_ATTR_NOSUID, MS_NOSUID)) != 0) {
				*failed = p;
				return -1;
			}
			free(p);
		}
		off += 5 + (size_t)n;
	}
	return 0;
}

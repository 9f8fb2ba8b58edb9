#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "sandbox_linux.h"

// agentls_limit_processes puts the helper, and so the command and all it
// starts, under the plan's process limit before anything is confined: the
// 'G' record names the descriptor of a pids cgroup's cgroup.procs, opened
// by the runner (writing 0 moves the writer), the 'T' record an
// RLIMIT_NPROC to set, soft and hard, where no cgroup could be had or,
// for a user other than root, should joining it fail. It returns 0, or
// -1 with errno set and *step saying what failed.
int agentls_limit_processes(const unsigned char *buf, size_t len, const char **step) {
	int fd = -1, has_nproc = 0;
	uint64_t nproc = 0;
	for (size_t off = 0; off < len;) {
		unsigned char tag = buf[off];
		uint32_t n = buf[off + 1] | buf[off + 2] << 8 | buf[off + 3] << 16 | (uint32_t)buf[off + 4] << 24;
		const unsigned char *p = buf + off + 5;
		off += 5 + (size_t)n;
		if ((tag != 'G' && tag != 'T') || n != 8)
			continue;
		uint64_t v = 0;
		for (int i = 7; i >= 0; i--)
			v = v << 8 | p[i];
		if (tag == 'G')
			fd = (int)v;
		else
			has_nproc = 1, nproc = v;
	}
	if (fd >= 0) {
		// Only ever a cgroup's file: a plan naming any other
		// descriptor must not get a "0" written into it.
		struct statfs sf;
		if (fstatfs(fd, &sf) != 0 || (sf.f_type != 0x27e0eb && sf.f_type != 0x63677270)) {
			errno = EBADF;
			*step = "the pids cgroup's descriptor is not a cgroup file";
			return -1;
		}
		ssize_t w;
		do
			w = write(fd, "0", 1);
		while (w < 0 && errno == EINTR);
		int e = errno;
		close(fd);
		if (w == 1)
			return 0;
		if (!has_nproc) {
			errno = w < 0 ? e : EIO;
			*step = "joining the command's pids cgroup";
			return -1;
		}
	}
	if (!has_nproc)
		return 0;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NPROC, &rl) != 0) {
		*step = "getrlimit(RLIMIT_NPROC)";
		return -1;
	}
	if (rl.rlim_max == RLIM_INFINITY || nproc < rl.rlim_max)
		rl.rlim_max = nproc;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NPROC, &rl) != 0) {
		*step = "setrlimit(RLIMIT_NPROC)";
		return -1;
	}
	return 0;
}

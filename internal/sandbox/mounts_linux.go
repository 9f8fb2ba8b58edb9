package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// protectMounts runs in the helper inside the fresh user and mount
// namespace it entered: it makes every mount private (nothing propagates
// back to the host) and pins each protected path read-only.
// Placeholders (see placeholder_linux.go) are covered instead: a directory by a
// read-only bind of itself (it is empty), anything else by a read-only
// /dev/null. A path still missing (the helper was started by hand, not by
// the runner) gets a placeholder here, which then stays behind.
func protectMounts(paths []protectedPath, placeholders map[string]bool) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	for _, p := range paths {
		if p.missing {
			_, err := createPlaceholder(p.path)
			switch {
			case err == nil:
				placeholders[p.path] = true
			case errors.Is(err, unix.EEXIST): // appeared meanwhile: pin it
			default:
				continue // not creatable by us, so not by the command
			}
		}
		var err error
		if placeholders[p.path] {
			err = coverPlaceholder(p.path)
		} else {
			err = bindReadOnly(p.path, p.path)
		}
		if err != nil {
			return fmt.Errorf("read-only mount of %s: %w", p.path, err)
		}
	}
	return nil
}

func coverPlaceholder(path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return bindReadOnly(path, path)
	}
	return bindReadOnly("/dev/null", path)
}

// bindReadOnly mounts src read-only onto dst, recursively. A symlink is
// pinned as the link itself (it can be neither removed nor replaced). The
// new mount API keeps the source's nosuid/nodev/noexec/atime flags, which a
// user namespace may not drop; kernels before 5.12 get the classic bind and
// remount, which follows a final symlink.
func bindReadOnly(src, dst string) error {
	fd, err := unix.OpenTree(unix.AT_FDCWD, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOSYS) {
		return bindReadOnlyClassic(src, dst)
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		if errors.Is(err, unix.ENOSYS) {
			return bindReadOnlyClassic(src, dst)
		}
		return err
	}
	return unix.MoveMount(fd, "", unix.AT_FDCWD, dst, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

func bindReadOnlyClassic(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	const keep = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME
	flags := uintptr(st.Flags) & keep
	return unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|flags, "")
}

// privateShm mounts a fresh tmpfs on /dev/shm, so POSIX shared memory and
// semaphores (Python's multiprocessing, for one) work without giving the
// command the host's segments to read or tamper with.
func privateShm() error {
	return unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777")
}

// dropCapabilities leaves the calling thread, which is the one that execs
// the command, with no capabilities: bounding set emptied (so exec as root
// cannot regain any), ambient and inheritable cleared, permitted and
// effective zeroed. Without CAP_SETPCAP (an unprivileged user outside a
// user namespace) the bounding set cannot shrink, but then there is
// nothing to regain either: no_new_privs keeps exec from adding any.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // beyond the kernel's last capability
		}
		if err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clearing capabilities: %w", err)
	}
	return nil
}

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Who relies on a placeholder is kept by the kernel, not by us: every
// agent-ls process holds a shared flock(2) on a lock file of the project
// root for as long as one of its commands runs there, and only a holder of
// the exclusive lock removes placeholders. flock dies with its process, so
// a crashed or killed agent-ls stops counting by itself, and pid reuse
// cannot pass for liveness. Hence:
//
//   - placeholders are made and adopted only under the shared lock and
//     removed only under the exclusive one, so one process never removes
//     what another's running command relies on;
//   - the last command out (the first to get the exclusive lock without
//     waiting) removes them, whichever process made them;
//   - at start-up, RemovePlaceholders removes what dead processes left,
//     and does nothing while any live one is inside.
//
// The lock files live outside every workspace (see lockDir), one per
// project root, named after the root's device and inode so that every
// path to the same directory meets the same lock. A lock file also
// records the placeholders made under it, so they are recognised on file
// systems without user xattrs; it is unlinked by the exclusive holder once
// the root is clean, and a process that locked a file meanwhile unlinked
// tries again with the new one.

// lockWait bounds how long a command waits for another process's cleanup
// of the same root (which takes microseconds) before failing to start.
const lockWait = 10 * time.Second

var errLockBusy = errors.New("another agent-ls process is running a command here")

// lockDir is where the lock files live: the same directory for every
// agent-ls of this user whatever its environment (so no $XDG_RUNTIME_DIR
// or $TMPDIR), outside the workspace. The helper keeps it read-only when it
// falls inside a writable root (see lockDirProtection): a command that
// could delete a lock file would make the next agent-ls take its root's
// placeholders for abandoned.
func lockDir() string {
	uid := os.Geteuid()
	if runtime := "/run/user/" + strconv.Itoa(uid); ownedDir(runtime, uid) {
		return filepath.Join(runtime, "agent-ls")
	}
	if uid == 0 {
		if fi, err := os.Stat("/run"); err == nil && fi.IsDir() {
			return "/run/agent-ls"
		}
	}
	return "/tmp/agent-ls-placeholders-" + strconv.Itoa(uid)
}

func ownedDir(path string, uid int) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == uid
}

// ensureLockDir creates lockDir if needed and refuses one that another
// user could tamper with.
func ensureLockDir() (string, error) {
	dir := lockDir()
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("placeholder lock directory: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return "", fmt.Errorf("placeholder lock directory: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return "", fmt.Errorf("placeholder lock directory %s is not a directory of ours that only we can write", dir)
	}
	return dir, nil
}

// lockDirProtection is the lock directory as a path for the helper to pin
// read-only, when it lies inside a writable root.
func lockDirProtection(writable []string) []protectedPath {
	dir := lockDir()
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || !under(dir, writable) {
		return nil
	}
	return []protectedPath{{path: dir}}
}

// rootLock is one flock on the lock file of a project root.
type rootLock struct {
	root string // the project root, where the placeholders are
	path string // the lock file
	fd   int    // -1: no lock could be taken (see holdPlaceholders)
	own  map[string]devIno
}

// lockRoot takes root's lock: exclusive and without waiting (errLockBusy
// when anyone holds it), or shared, waiting up to lockWait for a cleanup.
func lockRoot(root string, exclusive bool) (*rootLock, error) {
	var st unix.Stat_t
	if err := unix.Stat(root, &st); err != nil {
		return nil, err
	}
	dir, err := ensureLockDir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, strconv.FormatUint(st.Dev, 16)+"-"+strconv.FormatUint(st.Ino, 16)+".lock")
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	deadline := time.Now().Add(lockWait)
	for {
		fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_APPEND|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("placeholder lock %s: %w", path, err)
		}
		err = unix.Flock(fd, how|unix.LOCK_NB)
		if err == nil && sameFile(fd, path) {
			return &rootLock{root: root, path: path, fd: fd}, nil
		}
		unix.Close(fd)
		switch {
		case err == nil:
			// Unlinked by a cleanup between open and flock: the
			// next open makes a fresh file.
		case !errors.Is(err, unix.EWOULDBLOCK):
			return nil, fmt.Errorf("placeholder lock %s: %w", path, err)
		case exclusive:
			return nil, errLockBusy
		case time.Now().After(deadline):
			return nil, fmt.Errorf("placeholder lock %s: still held exclusively after %v", path, lockWait)
		default:
			time.Sleep(time.Millisecond)
		}
	}
}

// sameFile tells whether fd is still the file at path.
func sameFile(fd int, path string) bool {
	var a, b unix.Stat_t
	return unix.Fstat(fd, &a) == nil && unix.Stat(path, &b) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

func (l *rootLock) close() { unix.Close(l.fd) }

// record notes a placeholder made under the lock (one short O_APPEND
// write, so holders of the shared lock do not interleave).
func (l *rootLock) record(path string, st unix.Stat_t) {
	if l.fd < 0 {
		l.own[path] = devIno{st.Dev, st.Ino}
		return
	}
	line := fmt.Sprintf("%d %d %s\n", st.Dev, st.Ino, path)
	_, _ = unix.Write(l.fd, []byte(line))
}

type devIno struct{ dev, ino uint64 }

// records reads what record wrote.
func (l *rootLock) records() map[string]devIno {
	out := map[string]devIno{}
	if l.fd < 0 {
		return out // nothing shared without the lock
	}
	var data []byte
	buf := make([]byte, 4096)
	for off := int64(0); ; {
		n, err := unix.Pread(l.fd, buf, off)
		if n <= 0 || err != nil {
			break
		}
		data = append(data, buf[:n]...)
		off += int64(n)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) != 3 {
			continue
		}
		dev, err1 := strconv.ParseUint(f[0], 10, 64)
		ino, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 == nil && err2 == nil {
			out[f[2]] = devIno{dev, ino}
		}
	}
	return out
}

// placeholderAt tells whether path holds a placeholder of ours: made by
// this user, and recognisable (see isPlaceholder) or recorded under the
// lock on a file system without user xattrs.
func placeholderAt(path string, recs map[string]devIno) (ok, dir bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || int(st.Uid) != os.Geteuid() {
		return false, false
	}
	if ok, dir := isPlaceholder(path); ok {
		return true, dir
	}
	r, found := recs[path]
	if !found || r.dev != st.Dev || r.ino != st.Ino || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false, false
	}
	_, err := unix.Lgetxattr(path, placeholderXattr, make([]byte, 8))
	return errors.Is(err, unix.ENOTSUP), true
}

// cleanup removes every placeholder of ours left in the root, then the
// lock file; the caller holds the exclusive lock.
func (l *rootLock) cleanup() error {
	recs := l.records()
	var errs []error
	for _, name := range placeholderNames() {
		path := filepath.Join(l.root, name)
		ok, dir := placeholderAt(path, recs)
		if !ok {
			continue
		}
		if err := removePlaceholder(path, dir); err != nil && !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, &os.PathError{Op: "remove", Path: path, Err: err})
		}
	}
	if err := unix.Unlink(l.path); err != nil && !errors.Is(err, unix.ENOENT) {
		errs = append(errs, &os.PathError{Op: "remove", Path: l.path, Err: err})
	}
	return errors.Join(errs...)
}

// removeOwn removes, without a lock, the placeholders this command made
// that are still the ones it made.
func (l *rootLock) removeOwn() {
	for path, r := range l.own {
		var st unix.Stat_t
		if unix.Lstat(path, &st) == nil && st.Dev == r.dev && st.Ino == r.ino {
			_ = removePlaceholder(path, st.Mode&unix.S_IFMT == unix.S_IFDIR)
		}
	}
}

// isDenied tells a lock directory we may not write (read-only inside a
// sandbox) from other failures.
func isDenied(err error) bool {
	return errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EROFS)
}

// placeholderNames are the names a placeholder can have in a root.
func placeholderNames() []string { return ProtectedNames }

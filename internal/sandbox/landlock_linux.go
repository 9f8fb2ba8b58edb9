package sandbox

import (
	"errors"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// LandlockABI returns the Landlock ABI version of the running kernel, 0 when
// Landlock is missing or disabled at boot.
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// devFiles are character devices every mode may write (and ioctl, for
// terminals); none of them reaches persistent state.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

// errNoLandlock is why the helper refuses to run a command where the
// kernel has no Landlock.
var errNoLandlock = errors.New("the kernel has no Landlock support (needs Linux 5.13+ with landlock in the lsm= list); refusing to run the command unconfined")

// landlockABIs are go-landlock's configurations for each Landlock ABI
// version, from 1 on: the rights each version handles.
var landlockABIs = []landlock.Config{
	landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

// Groups of filesystem rights, as go-landlock names them.
const (
	llRead      = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	llWrite     = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSTruncate
	llReadWrite = llRead | llWrite
	// llFile are the rights that apply to a file; a rule on a file gets
	// no others (the helper narrows it, exec_plan_linux.c).
	llFile = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSReadFile | ll.AccessFSIoctlDev
)

// writableDirRights are the rights of a writable root on this ABI: read,
// write, and from ABI 2 on refer, which lets rename and link work across
// directories inside the roots.
func writableDirRights(abi int) uint64 {
	r := uint64(llReadWrite)
	if abi >= 2 {
		r |= ll.AccessFSRefer
	}
	return r & abiRights(abi).fs
}

// commandDirRights are the rights of a command's writable directories:
// writableDirRights, less the right to make socket files when the network
// is off. Landlock asks for that right not only to mknod a socket or to
// bind one (which the supervisor does for the command, notify_linux.c)
// but also at the destination of a link or a rename of one, so without
// it a command cannot put a socket made outside the sandbox (tmux's, an
// SSH agent's) into a directory of the workspace under a name of its own,
// and a name the supervisor bound in a directory stays its socket. (A
// whole directory holding such a socket can still be moved between
// writable roots: the supervisor checks every socket's identity.) The
// right is in every ABI (1 on).
func commandDirRights(abi int, network bool) uint64 {
	r := writableDirRights(abi)
	if !network {
		r &^= ll.AccessFSMakeSock
	}
	return r
}

func abiRights(abi int) struct{ fs, net, scoped uint64 } {
	if abi < 1 {
		return struct{ fs, net, scoped uint64 }{}
	}
	c := landlockABIs[min(abi, len(landlockABIs))-1]
	return struct{ fs, net, scoped uint64 }{uint64(c.HandledAccessFS), uint64(c.HandledAccessNet), uint64(c.Scoped)}
}

// landlockPlan is the one Landlock ruleset of a command, for the kernel's
// ABI: the whole filesystem readable and executable, the writable roots
// and the harmless devices writable. Everything the ABI knows is handled,
// so what no rule grants is denied. With the network off it also denies
// TCP and UDP bind/connect, Unix socket paths (ABI 9), making socket files
// (commandDirRights) and, in the IPC scopes, abstract Unix sockets outside
// the sandbox; signals to processes
// outside the sandbox are always denied (ABI 6).
func landlockPlan(abi int, writable []string, network bool) (landlockRuleset, error) {
	if abi < 1 {
		return landlockRuleset{}, errNoLandlock
	}
	have := abiRights(abi)
	rs := landlockRuleset{handledFS: have.fs, handledNet: have.net, scoped: have.scoped}
	if network {
		rs.handledNet = 0
		rs.handledFS &^= ll.AccessFSResolveUnix
		rs.scoped &^= ll.ScopeAbstractUnixSocket
	}
	add := func(access uint64, optional bool, paths ...string) {
		access &= rs.handledFS
		if access == 0 {
			return
		}
		for _, p := range paths {
			rs.rules = append(rs.rules, landlockRule{path: p, access: access, optional: optional})
		}
	}
	add(llRead, false, "/")
	add(llReadWrite&llFile|ll.AccessFSIoctlDev, true, devFiles...)
	add(llReadWrite|ll.AccessFSIoctlDev, true, "/dev/pts")
	add(commandDirRights(abi, network), true, writable...)
	return rs, nil
}

//go:build cgo

package sandbox

import (
	"fmt"
	"slices"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// offlineSocketTypes are the only socket types a command may create with
// the network off, for AF_UNIX alone: stream and seqpacket sockets, whose
// sends go to their connected peer whatever address they name (stream
// sockets refuse one, seqpacket ones ignore it). A datagram socket (and
// SOCK_RAW, which AF_UNIX turns into one) could send to any socket on the
// machine by path or abstract name, through sendmsg, whose address the
// filter cannot see.
var offlineSocketTypes = []uint64{unix.SOCK_STREAM, unix.SOCK_SEQPACKET}

// installSeccomp loads the filter for all threads of the process; it is
// inherited across exec. Calls from a foreign architecture (i386 int 0x80,
// x32) kill the process.
func installSeccomp(network bool) error {
	f, err := seccomp.NewFilter(seccomp.ActAllow)
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	defer f.Release()
	if err := f.SetNoNewPrivsBit(true); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	// The default kills only the calling thread, which leaves a
	// multithreaded program (any Go binary) hanging.
	if err := f.SetBadArchAction(seccomp.ActKillProcess); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	eperm := seccomp.ActErrno.SetReturnCode(int16(unix.EPERM))
	deny := func(name string, conds ...seccomp.ScmpCondition) error {
		sc, err := seccomp.GetSyscallFromName(name)
		if err != nil {
			return fmt.Errorf("seccomp: syscall %s: %w", name, err)
		}
		if len(conds) == 0 {
			err = f.AddRule(sc, eperm)
		} else {
			err = f.AddRuleConditional(sc, eperm, conds)
		}
		if err != nil {
			return fmt.Errorf("seccomp: rule for %s: %w", name, err)
		}
		return nil
	}
	names := alwaysDenied
	if !network {
		names = append(names[:len(names):len(names)], offlineDenied...)
	}
	for _, n := range names {
		if err := deny(n); err != nil {
			return err
		}
	}
	// Typing into the terminal the sandbox inherited (TIOCSTI, and the
	// console's TIOCLINUX paste) would run commands in the user's shell
	// once the sandbox exits. The kernel reads the request as 32 bits.
	for _, req := range []uint64{unix.TIOCSTI, unix.TIOCLINUX} {
		c, err := seccomp.MakeCondition(1, seccomp.CompareMaskedEqual, 0xffffffff, req)
		if err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
		if err := deny("ioctl", c); err != nil {
			return err
		}
	}
	if !network {
		if err := denyOfflineSockets(deny); err != nil {
			return err
		}
	}
	if err := f.Load(); err != nil {
		return fmt.Errorf("seccomp: load: %w", err)
	}
	return nil
}

// denyOfflineSockets adds the rules that keep a command without network to
// the Unix sockets it holds: socket and socketpair only for AF_UNIX with a
// type in offlineSocketTypes (the type's low four bits; the high ones are
// SOCK_NONBLOCK and SOCK_CLOEXEC), and sendto only without an address.
// send, recv, sendmsg, recvmsg, their mmsg forms, socket options,
// getsockname, getpeername and shutdown stay allowed: on such sockets they
// reach nothing but the peer. Rules for one call are alternatives: any one
// that matches denies it.
func denyOfflineSockets(deny func(string, ...seccomp.ScmpCondition) error) error {
	notUnix, err := seccomp.MakeCondition(0, seccomp.CompareNotEqual, unix.AF_UNIX)
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	conds := []seccomp.ScmpCondition{notUnix}
	for typ := uint64(0); typ <= 0xf; typ++ {
		if slices.Contains(offlineSocketTypes, typ) {
			continue
		}
		c, err := seccomp.MakeCondition(1, seccomp.CompareMaskedEqual, 0xf, typ)
		if err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
		conds = append(conds, c)
	}
	for _, n := range []string{"socket", "socketpair"} {
		for _, c := range conds {
			if err := deny(n, c); err != nil {
				return err
			}
		}
	}
	withAddress, err := seccomp.MakeCondition(4, seccomp.CompareNotEqual, 0)
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return deny("sendto", withAddress)
}

// seccompAvailable reports whether the kernel takes seccomp filters.
func seccompAvailable() (bool, string) {
	api, err := seccomp.GetAPI()
	if err != nil {
		return false, err.Error()
	}
	if api < 1 {
		return false, "the kernel does not support seccomp filters"
	}
	return true, ""
}

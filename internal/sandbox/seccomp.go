package sandbox

import (
	"fmt"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// alwaysDenied are refused whatever the network setting: they read or steer
// other processes (ptrace, process_vm_*) or submit work the filter cannot
// see (io_uring can open and connect sockets on its own).
var alwaysDenied = []string{
	"ptrace", "process_vm_readv", "process_vm_writev",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
}

// offlineDenied are refused when the network is off, as Codex's filter
// does. socket and socketpair are refused for every domain but AF_UNIX (see
// installSeccomp); of the rest only what an anonymous socketpair needs
// (read, write, recvfrom, sendmsg, recvmsg) stays: a command can talk to its
// own children, but cannot reach a listener outside the sandbox (a Docker
// or systemd socket is a way out) nor offer one to the host. Unix servers
// (bind, listen, accept) therefore need the network enabled.
var offlineDenied = []string{
	"connect", "bind", "listen", "accept", "accept4",
	"sendto", "sendmmsg", "recvmmsg",
	"getsockopt", "setsockopt", "getpeername", "getsockname", "shutdown",
}

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
		notUnix, err := seccomp.MakeCondition(0, seccomp.CompareNotEqual, unix.AF_UNIX)
		if err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
		for _, n := range []string{"socket", "socketpair"} {
			if err := deny(n, notUnix); err != nil {
				return err
			}
		}
	}
	if err := f.Load(); err != nil {
		return fmt.Errorf("seccomp: load: %w", err)
	}
	return nil
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

//go:build cgo

package sandbox

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

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

// seccompPrograms caches the compiled filter per network setting and
// whether the supervisor decides connect and bind: it depends on nothing
// else, and compiling it costs more than loading it.
var seccompPrograms struct {
	sync.Mutex
	bpf [2][2][]byte
}

// seccompProgram returns the filter of a command, compiled to the BPF
// program the helper loads (exec_plan_linux.c) with no_new_privs set. It is
// inherited across exec. Calls from a foreign architecture (i386 int 0x80,
// x32) kill the process. With notify (network off only), connect and bind
// go to the supervisor instead of failing (see offlineNotified).
func seccompProgram(network, notify bool) ([]byte, error) {
	notify = notify && !network
	i, j := 0, 0
	if network {
		i = 1
	}
	if notify {
		j = 1
	}
	seccompPrograms.Lock()
	defer seccompPrograms.Unlock()
	if b := seccompPrograms.bpf[i][j]; b != nil {
		return b, nil
	}
	b, err := compileSeccomp(network, notify)
	if err != nil {
		return nil, err
	}
	seccompPrograms.bpf[i][j] = b
	return b, nil
}

func compileSeccomp(network, notify bool) ([]byte, error) {
	f, err := seccomp.NewFilter(seccomp.ActAllow)
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	defer f.Release()
	// The default kills only the calling thread, which leaves a
	// multithreaded program (any Go binary) hanging.
	if err := f.SetBadArchAction(seccomp.ActKillProcess); err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	if err := addRules(f, network, notify); err != nil {
		return nil, err
	}
	return exportBPF(f)
}

// exportBPF compiles f through a memfd (libseccomp before 2.6 can only
// write the program to a descriptor).
func exportBPF(f *seccomp.ScmpFilter) ([]byte, error) {
	fd, err := unix.MemfdCreate("agent-ls-seccomp", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("seccomp: memfd: %w", err)
	}
	file := os.NewFile(uintptr(fd), "agent-ls-seccomp")
	defer file.Close()
	if err := f.ExportBPF(file); err != nil {
		return nil, fmt.Errorf("seccomp: compiling the filter: %w", err)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seccomp: reading the compiled filter: %w", err)
	}
	b, err := io.ReadAll(file)
	if err != nil {
		return nil, fmt.Errorf("seccomp: reading the compiled filter: %w", err)
	}
	if len(b) == 0 || len(b)%8 != 0 {
		return nil, fmt.Errorf("seccomp: the compiled filter has %d bytes, not a whole number of instructions", len(b))
	}
	return b, nil
}

func addRules(f *seccomp.ScmpFilter, network, notify bool) error {
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
	switch {
	case notify:
		for _, n := range offlineNotified {
			sc, err := seccomp.GetSyscallFromName(n)
			if err != nil {
				return fmt.Errorf("seccomp: syscall %s: %w", n, err)
			}
			if err := f.AddRule(sc, seccomp.ActNotify); err != nil {
				return fmt.Errorf("seccomp: rule for %s: %w", n, err)
			}
		}
	case !network:
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
	if err := addSetIDRules(f, setgidDirsNotified()); err != nil {
		return err
	}
	if !network {
		return denyOfflineSockets(deny)
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

// seccompAPI is libseccomp's API level for this kernel: 5 and up can
// compile the rules that notify the supervisor.
func seccompAPI() (uint, error) { return seccomp.GetAPI() }

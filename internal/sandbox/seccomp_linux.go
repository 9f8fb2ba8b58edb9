//go:build cgo

package sandbox

import (
	"fmt"
	"io"
	"maps"
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

// seccompPrograms caches the compiled filter per network setting, whether
// the supervisor decides connect and bind, and whether the command runs
// in its session's network namespace: it depends on nothing else, and
// compiling it costs more than loading it.
var seccompPrograms struct {
	sync.Mutex
	bpf map[filterKind][]byte
}

// filterKind is what a command's filter depends on.
type filterKind struct{ network, notify, loopback bool }

// seccompProgram returns the filter of a command, compiled to the BPF
// program the helper loads (exec_plan_linux.c) with no_new_privs set. It is
// inherited across exec. Calls from a foreign architecture (i386 int 0x80,
// x32) kill the process. With notify (network off only), connect and bind
// go to the supervisor instead of failing (see offlineNotified). With
// loopback (network off and notify only: the command runs in its
// session's network namespace, netns_linux.go) TCP and UDP sockets may be
// made too.
func seccompProgram(network, notify, loopback bool) ([]byte, error) {
	notify = notify && !network
	k := filterKind{network, notify, loopback && notify}
	seccompPrograms.Lock()
	defer seccompPrograms.Unlock()
	if b := seccompPrograms.bpf[k]; b != nil {
		return b, nil
	}
	b, err := compileSeccomp(k)
	if err != nil {
		return nil, err
	}
	if seccompPrograms.bpf == nil {
		seccompPrograms.bpf = map[filterKind][]byte{}
	}
	seccompPrograms.bpf[k] = b
	return b, nil
}

func compileSeccomp(k filterKind) ([]byte, error) {
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
	if err := addRules(f, k); err != nil {
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

func addRules(f *seccomp.ScmpFilter, k filterKind) error {
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
	case k.notify:
		for _, n := range offlineNotified {
			sc, err := seccomp.GetSyscallFromName(n)
			if err != nil {
				return fmt.Errorf("seccomp: syscall %s: %w", n, err)
			}
			if err := f.AddRule(sc, seccomp.ActNotify); err != nil {
				return fmt.Errorf("seccomp: rule for %s: %w", n, err)
			}
		}
	case !k.network:
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
	if !k.network {
		return denyOfflineSockets(deny, k.loopback)
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
// that matches denies it. With loopback (the session's network namespace,
// where only lo exists) socket also makes AF_INET and AF_INET6 sockets of
// a type in loopbackSocketTypes.
func denyOfflineSockets(deny func(string, ...seccomp.ScmpCondition) error, loopback bool) error {
	socketConds, err := offlineSocketConds(loopback)
	if err != nil {
		return err
	}
	pairConds, err := offlineSocketConds(false)
	if err != nil {
		return err
	}
	for n, conds := range map[string][][]seccomp.ScmpCondition{"socket": socketConds, "socketpair": pairConds} {
		for _, c := range conds {
			if err := deny(n, c...); err != nil {
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

// loopbackSocketTypes are the types of AF_INET and AF_INET6 sockets a
// command may make in its session's network namespace: TCP and UDP. (Raw
// and ICMP sockets would need capabilities the command lacks there.)
var loopbackSocketTypes = []uint64{unix.SOCK_STREAM, unix.SOCK_DGRAM}

// offlineSocketConds are the conditions, each a rule of its own, under
// which socket (or socketpair) is denied with the network off: a family
// other than AF_UNIX (and, with loopback, AF_INET and AF_INET6), or a
// type the family may not have.
func offlineSocketConds(loopback bool) ([][]seccomp.ScmpCondition, error) {
	families := map[uint64][]uint64{unix.AF_UNIX: offlineSocketTypes}
	if loopback {
		families[unix.AF_INET] = loopbackSocketTypes
		families[unix.AF_INET6] = loopbackSocketTypes
	}
	var out [][]seccomp.ScmpCondition
	add := func(conds ...seccomp.ScmpCondition) { out = append(out, conds) }
	cond := func(arg uint, op seccomp.ScmpCompareOp, v ...uint64) (seccomp.ScmpCondition, error) {
		c, err := seccomp.MakeCondition(arg, op, v...)
		if err != nil {
			return c, fmt.Errorf("seccomp: %w", err)
		}
		return c, nil
	}
	// Every family above the largest allowed one, and each one below it
	// that is not allowed.
	top := slices.Max(slices.Collect(maps.Keys(families)))
	c, err := cond(0, seccomp.CompareGreater, top)
	if err != nil {
		return nil, err
	}
	add(c)
	for fam := uint64(0); fam < top; fam++ {
		if _, ok := families[fam]; ok {
			continue
		}
		if c, err = cond(0, seccomp.CompareEqual, fam); err != nil {
			return nil, err
		}
		add(c)
	}
	for fam, types := range families {
		famCond, err := cond(0, seccomp.CompareEqual, fam)
		if err != nil {
			return nil, err
		}
		for typ := uint64(0); typ <= 0xf; typ++ {
			if slices.Contains(types, typ) {
				continue
			}
			if c, err = cond(1, seccomp.CompareMaskedEqual, 0xf, typ); err != nil {
				return nil, err
			}
			add(famCond, c)
		}
	}
	return out, nil
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

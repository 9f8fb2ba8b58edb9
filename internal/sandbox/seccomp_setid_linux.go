//go:build cgo

package sandbox

import (
	"fmt"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// syscallNumbers are the calls libseccomp may not know by name yet, with
// their number (the same on every architecture since Linux 5.1).
var syscallNumbers = map[string]seccomp.ScmpSyscall{"fchmodat2": 452, "openat2": 437}

func syscallByName(name string) (seccomp.ScmpSyscall, error) {
	sc, err := seccomp.GetSyscallFromName(name)
	if err != nil {
		if n, ok := syscallNumbers[name]; ok {
			return n, nil
		}
		return 0, fmt.Errorf("seccomp: syscall %s: %w", name, err)
	}
	return sc, nil
}

// addSetIDRules keeps a command from making set-user-ID and set-group-ID
// files, which would outlive the sandbox and run with the command's
// identity for whoever starts them (root's, when the agent runs as root):
// a mode with S_ISUID or S_ISGID is refused with EPERM on every call that
// creates a file (setIDCreators), S_ISUID on every chmod (setIDChmods),
// and S_ISGID alone on a chmod goes to the supervisor when notifyDirs
// (it allows it on a directory only), else is refused too. openat2, whose
// mode the filter cannot see, is ENOSYS. File capabilities need no rule:
// setting security.capability takes CAP_SETFCAP, which the command has
// in no namespace.
func addSetIDRules(f *seccomp.ScmpFilter, notifyDirs bool) error {
	eperm := seccomp.ActErrno.SetReturnCode(int16(unix.EPERM))
	enosys := seccomp.ActErrno.SetReturnCode(int16(unix.ENOSYS))
	add := func(name string, act seccomp.ScmpAction, conds ...seccomp.ScmpCondition) error {
		sc, err := syscallByName(name)
		if err != nil {
			return err
		}
		if len(conds) == 0 {
			err = f.AddRule(sc, act)
		} else {
			err = f.AddRuleConditional(sc, act, conds)
		}
		if err != nil {
			return fmt.Errorf("seccomp: rule for %s: %w", name, err)
		}
		return nil
	}
	cond := func(arg uint, mask, val uint64) seccomp.ScmpCondition {
		c, err := seccomp.MakeCondition(arg, seccomp.CompareMaskedEqual, mask, val)
		if err != nil {
			panic(err) // only for an argument index beyond 5
		}
		return c
	}
	// O_TMPFILE without the O_DIRECTORY it includes: the bit that says so.
	const tmpfile = unix.O_TMPFILE &^ unix.O_DIRECTORY
	for _, c := range setIDCreators {
		for _, bit := range []uint64{unix.S_ISUID, unix.S_ISGID} {
			m := cond(uint(c.mode), bit, bit)
			if c.flags < 0 {
				if err := add(c.name, eperm, m); err != nil {
					return err
				}
				continue
			}
			for _, fl := range []uint64{unix.O_CREAT, tmpfile} {
				if err := add(c.name, eperm, m, cond(uint(c.flags), fl, fl)); err != nil {
					return err
				}
			}
		}
	}
	gidOnly := eperm
	if notifyDirs {
		gidOnly = seccomp.ActNotify
	}
	for _, c := range setIDChmods {
		if err := add(c.name, eperm, cond(uint(c.mode), unix.S_ISUID, unix.S_ISUID)); err != nil {
			return err
		}
		// The two rules never match the same call, so which wins is moot.
		if err := add(c.name, gidOnly, cond(uint(c.mode), unix.S_ISUID|unix.S_ISGID, unix.S_ISGID)); err != nil {
			return err
		}
	}
	for _, n := range notSupported {
		if err := add(n, enosys); err != nil {
			return err
		}
	}
	return nil
}

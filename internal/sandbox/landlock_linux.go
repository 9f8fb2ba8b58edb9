package sandbox

import (
	"fmt"

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

// restrictFilesystem applies one Landlock ruleset: the whole filesystem
// readable and executable, the writable roots and the harmless devices
// writable. With the network off it also denies TCP bind/connect and, in
// the IPC scopes, abstract Unix sockets outside the sandbox; signals to
// processes outside the sandbox are always denied.
func restrictFilesystem(abi int, writable []string, network bool) error {
	if abi < 1 {
		return fmt.Errorf("the kernel has no Landlock support (needs Linux 5.13+ with landlock in the lsm= list); refusing to run the command unconfined")
	}
	cfg := landlock.V11
	if network {
		cfg.HandledAccessNet = 0
		cfg.HandledAccessFS &^= landlock.AccessFSSet(ll.AccessFSResolveUnix)
		cfg.Scoped &^= landlock.ScopedSet(ll.ScopeAbstractUnixSocket)
	}
	rw := landlock.RWDirs(writable...).IgnoreIfMissing()
	if abi >= 2 {
		// Refer lets rename and link work across directories inside the
		// roots; on ABI 1 asking for it would make the best-effort
		// downgrade drop Landlock altogether.
		rw = rw.WithRefer()
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devFiles...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing(),
	}
	if len(writable) > 0 {
		rules = append(rules, rw)
	}
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

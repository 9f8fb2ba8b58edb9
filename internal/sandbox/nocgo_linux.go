//go:build !cgo

package sandbox

import (
	"errors"
	"time"
)

// Without cgo agent-ls has neither libseccomp nor the helper's C
// constructor (nsenter_linux.go, reaper_linux.go): Probe reports seccomp unavailable,
// so the helper refuses every sandboxed command, the agent asks before
// every command, and the runner starts an approved (unconfined) command
// directly, in a process group of its own that a timeout or an interrupt
// kills, without the subreaper that would also catch daemons leaving that
// group.

var errNoCgo = errors.New("agent-ls was built without cgo, so without libseccomp")

// helperSupervises tells whether the helper can keep a command's
// processes from outliving it; without the constructor it cannot.
const helperSupervises = false

// How the processes of a command are kept from outliving it (reaper_linux.go).
const (
	supervisorNone      = 0
	supervisorSubreaper = 2
)

func seccompAvailable() (bool, string) { return false, errNoCgo.Error() }

func installSeccomp(bool) error { return errNoCgo }

func enteredNamespaces() error { return errNoCgo }

func supervisor() (int, error) { return supervisorNone, nil }

func startTimes() (namespaces, fork time.Duration, forked time.Duration) { return 0, 0, 0 }

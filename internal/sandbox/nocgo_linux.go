//go:build !cgo

package sandbox

import (
	"errors"
	"os"
)

// Without cgo agent-ls has neither libseccomp nor the helper's C
// constructor (nsenter_linux.c, reaper_linux.c): Probe reports seccomp
// unavailable, so the helper refuses every sandboxed command and the agent
// asks before every command; an approved (unconfined) command runs
// directly, in a session of its own that a timeout or an interrupt kills
// as a group.

var errNoCgo = errors.New("agent-ls was built without cgo, so without libseccomp")

func seccompAvailable() (bool, string) { return false, errNoCgo.Error() }

func seccompProgram(bool, bool, bool) ([]byte, error) { return nil, errNoCgo }

func seccompAPI() (uint, error) { return 0, errNoCgo }

func newSessionNet() (*sessionNet, error) { return nil, errNoCgo }

func sessionNetListen(_, _ *os.File) (*os.File, error) { return nil, errNoCgo }

//go:build !cgo

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// probeNamespaces, without cgo (and so without the helper's C, which would
// enter them), asks the kernel for the namespaces the helper would use:
// a child in a new user namespace, and a PID namespace where allowed,
// that unshares its mount namespace and remounts / (which Go's fork code
// does for CLONE_NEWNS in Unshareflags), then execs a path that does not
// exist: ENOENT from exec means every step before it worked.
func probeNamespaces() (pidNS bool, err error) {
	if err := forkIntoNamespaces(syscall.CLONE_NEWPID); err == nil {
		return true, nil
	}
	return false, forkIntoNamespaces(0)
}

func forkIntoNamespaces(extra uintptr) error {
	uid, gid := os.Geteuid(), os.Getegid()
	attr := &syscall.ProcAttr{Sys: &syscall.SysProcAttr{
		Cloneflags:   syscall.CLONE_NEWUSER | extra,
		Unshareflags: syscall.CLONE_NEWNS,
		UidMappings:  []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:  []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}}
	_, err := syscall.ForkExec("/nonexistent/agent-ls-namespace-probe", []string{"probe"}, attr)
	if errors.Is(err, syscall.ENOENT) {
		return nil
	}
	if err == nil {
		return errors.New("namespace probe: unexpected exec success")
	}
	return fmt.Errorf("the kernel refused an unprivileged user+mount namespace: %w", err)
}

package sandbox

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

var errRegistryClosed = errors.New("sandbox: the socket registry is closed")

// handle returns a descriptor of the registry for one command's helper,
// for the caller to close once the helper started: a duplicate sharing
// the registry's file, made on first use. A nil registry gives a new one
// of the command's own.
func (r *SocketRegistry) handle() (*os.File, error) {
	if r == nil {
		return newSocketRegistryFile()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errRegistryClosed
	}
	if r.f == nil {
		f, err := newSocketRegistryFile()
		if err != nil {
			return nil, err
		}
		r.f = f
	}
	fd, err := unix.FcntlInt(r.f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: socket registry: %w", err)
	}
	return os.NewFile(uintptr(fd), r.f.Name()), nil
}

// newSocketRegistryFile is an empty registry: a memory file opened for
// appending, which the supervisors write whole records to (see
// notify_linux.c).
func newSocketRegistryFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("agent-ls-sockets", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox: memfd for the socket registry: %w", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, unix.O_APPEND); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("sandbox: socket registry: %w", err)
	}
	return os.NewFile(uintptr(fd), "agent-ls-sockets"), nil
}

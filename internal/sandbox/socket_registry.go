package sandbox

import (
	"os"
	"sync"
)

// SocketRegistry records the Unix sockets that sandboxed commands bound,
// for the commands that share it: with the network off a command may
// connect only to a socket in the registry it runs with (or, where the
// user allows it, to any socket below the project root). One registry per
// agent session lets a server that one command starts be reached by the
// next. The zero value is ready to use; Close it when the last command
// that uses it has been started (running commands keep their own copy).
// A Policy without one gives each command a registry of its own.
//
// The registry lives in a memory file that only agent-ls and the
// commands' supervisors hold, never a command (notify_linux.c).
type SocketRegistry struct {
	mu     sync.Mutex
	f      *os.File
	closed bool
}

// Close releases the registry; commands started with it afterwards fail.
func (r *SocketRegistry) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

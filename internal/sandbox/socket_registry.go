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
//
// The registry also holds the session's loopback network: with the
// network off, and where the kernel allows it, the commands that share a
// registry share one network namespace with only lo in it, made at the
// first command that needs it and gone once the registry is closed and
// the last of those commands has ended (netns_linux.go). A server one
// command starts on 127.0.0.1 is so reached by the next, and by no
// command of another registry.
type SocketRegistry struct {
	mu     sync.Mutex
	f      *os.File
	closed bool
	// net is the session's user and network namespaces, once made;
	// netErr why they could not be (not asked again).
	net    *sessionNet
	netErr error
}

// Close releases the registry; commands started with it afterwards fail.
func (r *SocketRegistry) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.net.close()
	r.net = nil
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

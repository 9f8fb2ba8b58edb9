//go:build cgo

package sandbox

/*
#include "sandbox_linux.h"
*/
import "C"

import (
	"fmt"
	"os"
	"syscall"
)

// newSessionNet makes a session's user and network namespaces
// (agentls_new_session_net in netns_linux.c: a child sharing this
// process's memory and descriptors enters them, maps our ids, brings lo
// up and opens both, then exits).
func newSessionNet() (*sessionNet, error) {
	var user, net C.int
	var step *C.char
	if e := C.agentls_new_session_net(&user, &net, &step); e != 0 {
		return nil, fmt.Errorf("a network namespace for the session: %s: %w", C.GoString(step), syscall.Errno(e))
	}
	return &sessionNet{user: os.NewFile(uintptr(user), "agent-ls-session-userns"), net: os.NewFile(uintptr(net), "agent-ls-session-netns")}, nil
}

// sessionNetListen makes a TCP socket listening on 127.0.0.1 (a free
// port) in the session's network namespace, given the descriptors of
// its user and network namespaces (agentls_session_net_listen in
// netns_linux.c).
func sessionNetListen(user, net *os.File) (*os.File, error) {
	var fd, port C.int
	var step *C.char
	if e := C.agentls_session_net_listen(C.int(user.Fd()), C.int(net.Fd()), &fd, &port, &step); e != 0 {
		return nil, fmt.Errorf("a proxy endpoint in the session's network: %s: %w", C.GoString(step), syscall.Errno(e))
	}
	return os.NewFile(uintptr(fd), "agent-ls-proxy-endpoint"), nil
}

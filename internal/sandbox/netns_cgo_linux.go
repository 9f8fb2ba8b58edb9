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

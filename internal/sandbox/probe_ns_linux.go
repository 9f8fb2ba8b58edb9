//go:build cgo

package sandbox

/*
#include "sandbox_linux.h"
*/
import "C"

import (
	"fmt"
	"syscall"
)

// probeNamespaces asks whether the helper can enter its namespaces by
// taking its steps (agentls_probe_namespaces in nsenter_linux.c: a user
// and mount namespace with our ids mapped, a PID namespace where the kernel
// allows one, mounts made private) in a child that shares this process's
// memory and exits. pidNS says whether the PID namespace was allowed.
func probeNamespaces() (pidNS bool, err error) {
	var pidns C.int
	var step *C.char
	if e := C.agentls_probe_namespaces(&pidns, &step); e != 0 {
		return false, fmt.Errorf("the kernel refused an unprivileged user+mount namespace: %s: %w", C.GoString(step), syscall.Errno(e))
	}
	return pidns != 0, nil
}

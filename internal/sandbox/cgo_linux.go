package sandbox

// The helper's C lives in the package's *_linux.c files, which cgo
// compiles and links into every binary that imports this package
// (agent-ls and agent-ls-sandbox): the constructor that carries out the
// plan before the Go runtime starts (nsenter_linux.c, exec_plan_linux.c),
// the processes that supervise the command (reaper_linux.c) and their
// seccomp user notifications (notify_linux.c, notify_sock_linux.c,
// chmod_notify_linux.c), the mounts (nosuid_linux.c), the process limit
// (pids_exec_linux.c) and a session's loopback network (netns_linux.c).
// sandbox_linux.h declares what they share and syscalls_linux.h what older
// C libraries lack. Go calls two C functions, the namespace probe
// (probe_ns_linux.go) and the making of a session's network namespace
// (netns_cgo_linux.go); this file makes the package a cgo package, so that
// the C is built at all.

/*
#include "sandbox_linux.h"
*/
import "C"

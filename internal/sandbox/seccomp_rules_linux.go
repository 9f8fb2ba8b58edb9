package sandbox

// alwaysDenied are refused whatever the network setting: they read or steer
// other processes (ptrace, process_vm_*) or submit work the filter cannot
// see (io_uring can open and connect sockets on its own).
var alwaysDenied = []string{
	"ptrace", "process_vm_readv", "process_vm_writev",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
}

// offlineDenied are refused when the network is off: the calls that reach
// another socket by address or accept one from it. A command can still talk
// to its own children over the Unix sockets it creates (see
// installSeccomp), but cannot reach a listener outside the sandbox (a Docker
// or SSH agent socket is a way out) nor offer one to the host. Unix servers
// (bind, listen, accept) therefore need the network enabled.
var offlineDenied = []string{"connect", "bind", "listen", "accept", "accept4"}

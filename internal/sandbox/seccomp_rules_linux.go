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
// to its own children over the Unix sockets it creates, but cannot reach a
// listener outside the sandbox (a Docker or SSH agent socket is a way out)
// nor offer one to the host. Where the supervisor can decide them
// (offlineNotified), Unix servers inside the socket roots work too.
var offlineDenied = []string{"connect", "bind", "listen", "accept", "accept4"}

// offlineNotified are, when the supervisor can decide them
// (notify_linux.go), the calls it decides instead of the filter: connect
// and bind of Unix sockets by path inside the socket roots. listen, accept
// and accept4 are then allowed: the only sockets a command can make are
// Unix stream and seqpacket ones, and where those can be bound is the
// supervisor's decision.
var offlineNotified = []string{"connect", "bind"}

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
// (notify_linux.c), the calls it decides instead of the filter: connect
// and bind of Unix sockets by path inside the socket roots. listen, accept
// and accept4 are then allowed: the only sockets a command can make are
// Unix stream and seqpacket ones, and where those can be bound is the
// supervisor's decision.
var offlineNotified = []string{"connect", "bind"}

// modeCall is a call that gives a file the mode in its argument mode; when
// flags is not -1 the mode counts only with O_CREAT or O_TMPFILE among the
// flags in that argument (open's mode is garbage otherwise).
type modeCall struct {
	name        string
	mode, flags int
}

// setIDCreators make a file with the mode they are given: none of them can
// make a directory, so a set-user-ID or set-group-ID bit in their mode is
// refused (seccomp_setid_linux.go). mkdir and mkdirat are not here: the
// kernel keeps neither bit from their mode (a directory only inherits
// set-group-ID from its parent).
var setIDCreators = []modeCall{
	{"open", 2, 1}, {"openat", 3, 2}, {"creat", 1, -1},
	{"mknod", 1, -1}, {"mknodat", 2, -1},
}

// setIDChmods change the mode of an existing file. Set-user-ID is refused
// on all of them; set-group-ID alone goes to the supervisor where it can
// decide (a set-group-ID directory is ordinary: `install -d -m 2775`,
// `chmod g+s dir`) and is refused where it cannot.
var setIDChmods = []modeCall{
	{"chmod", 1, -1}, {"fchmod", 1, -1}, {"fchmodat", 2, -1}, {"fchmodat2", 2, -1},
}

// notSupported are answered ENOSYS, as a kernel without them would: openat2
// passes its mode inside a struct the filter cannot read, so it could
// create a set-user-ID file; callers fall back to openat, which the filter
// can check.
var notSupported = []string{"openat2"}

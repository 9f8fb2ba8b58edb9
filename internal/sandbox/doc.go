// Package sandbox runs commands under the Linux kernel sandbox: Landlock for
// the filesystem, a seccomp filter for the network and process tampering,
// no_new_privs and an empty capability set, and, where the kernel allows
// unprivileged user namespaces, a private mount namespace that keeps .git,
// .agents and .agent-ls read-only inside the writable roots.
//
// Two halves live here. The runner ([Command]) builds the [Cmd] that starts
// the helper (`agent-ls sandbox`, or the smaller agent-ls-sandbox binary)
// in its own process group, and at Start works out the helper's whole job
// as a plan (plan_linux.go): the writable roots and toolchain caches, the
// read-only mounts, the Landlock rules for the kernel's ABI, the compiled
// seccomp program (compiled once per process) and the command's path. The
// helper carries the plan out in C from its constructor (nsenter_linux.c,
// exec_plan_linux.c): it enters fresh user, mount and PID namespaces when the
// kernel allows, pins the protected paths, drops its capabilities,
// restricts itself with Landlock and seccomp and execs the command in
// place. The Go runtime never starts in the helper, which was most of its
// cost per command; Landlock and seccomp are only ever applied there,
// never in the server process, and a plan that would confine the command
// with less than both is refused. [Main] is the same helper typed by a
// person: it runs the command through the runner. [Probe] says what this
// machine can enforce, [LikelyDenied] guesses whether a failure was the
// sandbox's doing. Whether namespaces work is asked once per process,
// when something first needs the answer (the first command, or the
// agent's first description of the sandbox): a child enters a user, mount
// and PID namespace, remounts / private as the helper does, and execs a
// path that does not exist (probe_linux.go).
//
// # Nothing outlives a command
//
// Every process a command starts ends when the command exits, times out or
// is cancelled, and when agent-ls exits by any route. The helper's C
// constructor forks before Go starts (reaper_linux.c): with a PID namespace the
// runner's child stays outside and relays the exit status, its child is
// PID 1 of the namespace and reaps, and the helper below it execs the
// command; when the command exits PID 1 exits with its status and the
// kernel kills whatever is left in the namespace, daemons in other
// sessions and double forks included, so a daemon holding the command's
// stdout cannot hold the call either. Without user namespaces a child
// subreaper adopts the orphans and SIGKILLs every descendant instead.
// The helper gets SIGTERM as its parent-death signal and answers SIGTERM
// by killing everything and exiting once it is gone; that is how a
// timeout, an interrupt ([KillGroup]) and the death of agent-ls, kill -9
// included, end a command. SIGINT, SIGHUP and SIGQUIT sent to the helper
// are passed on to the command (PID 1 would otherwise drop them). A
// danger-full-access command runs unconfined through the helper too, under
// the subreaper alone.
// [Shutdown] ends every running command on the way out of serve and exec.
//
// # No set-user-ID or set-group-ID files
//
// A set-user-ID copy of a shell left in the workspace or /tmp would run,
// for any local user, with the identity of the agent's user (root's, when
// agent-ls runs as root), long after the sandbox is gone. So the filter
// (seccomp_setid_linux.go) refuses with EPERM every call that would give a
// file either bit: chmod, fchmod, fchmodat and fchmodat2 with S_ISUID; open,
// openat and creat with O_CREAT or O_TMPFILE, mknod and mknodat with S_ISUID
// or S_ISGID. openat2 carries its mode in a struct the filter cannot read:
// it answers ENOSYS, as an older kernel would, and callers fall back to
// openat. mkdir needs no rule: a directory keeps neither bit from its mode.
// A set-group-ID directory is ordinary (install -d -m 2775, chmod g+s
// dir), and seccomp cannot tell a directory from a file, so a chmod with
// S_ISGID and not S_ISUID goes to the supervisor (chmod_notify_linux.c),
// which opens what the call names itself (the caller's descriptor, or its
// path against the caller's directory descriptor or cwd) and changes the
// mode of that inode when it is a directory the caller owns; anything
// else is EPERM. Where the supervisor cannot run (see Unix sockets below)
// set-group-ID is refused on directories too. Setting the
// security.capability attribute takes CAP_SETFCAP, which the command has
// in no namespace. Inside the mount namespace every mount is also nosuid,
// and read-only but for the writable roots (nosuid_linux.c): Landlock
// does not confine chmod, chown, utimes or extended attributes, which a
// read-only mount refuses; on kernels before 5.12 each writable root is
// only bound onto itself nosuid. The filter is what still holds once the
// file is seen from outside.
//
// # A process limit
//
// A command and everything it starts may have at most Policy.MaxProcesses
// tasks (processes and threads; DefaultMaxProcesses, 4096, when unset),
// so a fork bomb ends there rather than at the machine's limit; fork and
// clone then fail with EAGAIN. Where agent-ls may make cgroups (root, or a
// delegated cgroup v2 subtree) each command gets a pids cgroup of its own
// (pids_linux.go): beside agent-ls's cgroup on cgroup v2, below it in the
// v1 pids hierarchy. The helper joins it through a descriptor the runner
// opened, before the command runs, and the runner removes it when the
// command is over (after a kill -9, the next agent-ls start removes what
// the dead process left). Elsewhere RLIMIT_NPROC stands in, which the
// kernel does not apply to root: inside the command's user namespace it
// counts the command's tasks alone (Linux 5.14 and later); without one it
// counts every task of the user, and is set that many above what the
// user runs when the command starts. --explain says which holds.
//
// # Placeholders for missing protected paths
//
// A missing .git, .agents or .agent-ls is kept uncreatable by a
// placeholder on the host (placeholder_linux.go) that the helper mounts over.
// Placeholders are shared by every command of every agent-ls process in a
// folder and removed by the last one out; who is in is a shared flock on
// a lock file outside the workspace, so liveness comes from the kernel
// (owner_linux.go). One agent-ls process never removes what another's running
// command relies on; a clean or signalled stop leaves nothing behind; after
// kill -9 the next start in the folder removes what the dead process left.
// Processes of different users do not see each other's locks: a
// placeholder made by another user is never removed, but is only shared
// for as long as its maker keeps it.
//
// # Toolchain caches
//
// Commands keep the environment the caller gives them (the user's, less
// what the shell environment policy drops), HOME included, so they find
// the user's configuration and tools; the cache variables below are added
// to it. When it has no PATH (a policy that inherits nothing), the
// program is still looked up on agent-ls's own PATH, as execvp falls back
// to a default search path, and runs without one. What they must not get is write access
// to the user's own build caches (~/.cache/go-build, ~/.cache/pip, ~/.npm,
// ...): a cache entry is trusted by every later build, and an entry
// written by a sandboxed command could be picked up by a build that runs
// outside the sandbox, poisoning it. So in workspace-write mode the helper
// gives each command caches of its own below a per-user cache root
// (Policy.CacheRoot when set, else $XDG_CACHE_HOME/agent-ls/sandbox, else
// ~/.cache/agent-ls/sandbox; below $TMPDIR or /tmp when neither exists,
// unless the policy excludes them from the writable roots), writable to
// Landlock, through the standard variables: GOCACHE, PIP_CACHE_DIR,
// npm_config_cache, and XDG_CACHE_HOME for the tools that follow it
// ([CacheEnv]). GOTMPDIR and
// CARGO_TARGET_DIR are dropped when they point outside the writable roots
// (Go then uses $TMPDIR, cargo the workspace's target/). Module caches
// that hold downloads (GOMODCACHE, ~/.cargo/registry) stay readable where
// they are: with the network off a build uses what is already there and
// cannot fetch more. The root holds no cache of the user's own, and is
// shared by the sandboxed commands of one user, across projects: what one
// project's command writes there, another project's sandboxed build may
// read, but nothing outside the sandbox ever does. The first sandboxed Go
// build fills that cache once (the standard library, about half a minute).
//
// # Sockets with the network off
//
// Programs talk to their own children over Unix sockets (socketpair,
// Python's multiprocessing passing descriptors with sendmsg, asyncio's
// self-pipe), so with the network off the filter still allows socket and
// socketpair for AF_UNIX of type stream or seqpacket, and the calls on
// sockets a command holds: send and recv in all their forms, sendmsg and
// recvmsg, socket options, getsockname, getpeername, shutdown. A stream
// socket refuses an address on send and a seqpacket socket ignores it, so
// none of these reaches another socket. Refused: sendto with an address,
// datagram (and raw) Unix sockets, the only kind whose sends can be
// addressed to another process's socket; every socket family but AF_UNIX.
//
// Unix socket servers in the project (a test that listens on a socket in
// the workspace, asyncio's start_unix_server, Node's net servers) work:
// connect and bind go to a supervisor (notify_linux.c) through seccomp's user
// notifications, and listen, accept and accept4 are allowed. The
// supervisor is the process already watching over the command, PID 1 of
// its namespace or the subreaper, an ancestor of everything the command
// starts; the helper hands it the filter's listener before the exec, so
// the command never holds it. For each call the supervisor copies the
// address out of the caller once, resolves it (symlinks followed, as the
// kernel would) and checks that it lies below a socket root: the project
// root and the configured writable roots, but never a root that holds or
// lies in /tmp, $TMPDIR, $XDG_RUNTIME_DIR or the cache root, where host
// services keep their sockets, whether or not /tmp and $TMPDIR are
// writable (the project root itself counts wherever it is). Then it makes the call itself, on a duplicate of the caller's
// socket (pidfd_getfd): connect through the descriptor of the very socket
// file it checked, bind in the very directory it checked (a private mount
// of it, so the socket keeps the caller's address; without the
// capabilities for that mount, under the bare name, which getsockname
// then reports). The caller gets its result. The caller is never let
// through to make the call itself, since another of its threads could
// change the address after the check. Refused with EPERM: abstract names,
// unnamed (autobind) addresses, relative paths (the caller's cwd cannot be
// resolved safely: /proc is the host's while the notification's PIDs are
// the namespace's), anything outside the socket roots; a missing socket
// is ENOENT, as clients polling for their server expect. Should the
// supervisor be gone, the kernel answers ENOSYS: denied. So host services
// (Docker, an SSH agent, D-Bus, X11, tmux, an editor's --listen socket,
// anything in $XDG_RUNTIME_DIR) stay out of reach, and on Landlock ABI 6
// and later abstract sockets outside the sandbox are refused by Landlock
// as well.
//
// A path inside the roots is not enough, since a command may make, link
// and rename files there: a host socket hard-linked, renamed or
// bind-mounted into the workspace has a path inside. So a command reaches
// only sockets that sandboxed commands bound. Each bind the supervisor
// makes is recorded by the socket file's identity (device, inode, and
// birth time, or modification time where the filesystem keeps none, so
// that a reused inode number does not count) in a [SocketRegistry]: a
// memory file that agent-ls makes once per session and hands every
// command's supervisor, which the commands themselves never hold. A
// connect goes through only when the socket file the supervisor opened
// (by the path, symlinks followed) has an identity in the registry; a
// server one command of the session starts is so reached by the next,
// and a socket made outside the sandbox is not, by its path, a symlink, a
// hard link, a rename, a directory moved into the workspace or a second
// mount (EPERM). With the network off a
// command's writable roots also lack Landlock's right to make socket files
// (LANDLOCK_ACCESS_FS_MAKE_SOCK, in every ABI), which Landlock asks for at
// the destination of a link or a rename as well as for mknod: a command
// cannot bring a socket into the workspace under a name of its own, nor
// rename one of its own (bind at the final name instead). A registry
// holds at most 65,536 sockets; binds beyond are refused (ENOSPC). A
// Policy without a registry gives the command one of its own. A socket
// that was made outside the sandbox below the project root (a database the
// user runs there) is reachable only where the user's config says
// [sandbox_workspace_write] allow_project_sockets = true
// ([Policy.AllowProjectSockets]), which a project's .agent-ls/config.toml
// cannot set; that reaches any socket below the project root, whoever
// made it, and nothing in the other writable roots.
//
// The server sees the supervisor as the connecting process in
// SO_PEERCRED (same user). Before Linux 6.9 (PIDFD_THREAD) the supervisor
// cannot take the socket of a call made by any thread but a process's
// first, and refuses it. Where the kernel or libseccomp lacks what the
// supervisor needs (seccomp user notifications, pidfd_getfd, libseccomp
// 2.5), and in read-only mode, connect, bind, listen and accept are
// denied outright, and [Probe] and --explain say so; a Unix server there
// needs the network enabled.
//
// # A loopback network per session
//
// With the network off, the commands that share a [SocketRegistry] (one
// agent session's) also share one network namespace holding only lo, up
// (netns_linux.go, netns_linux.c): a dev server one command starts on
// 127.0.0.1 or ::1 is reached by the session's next commands, and by no
// other session's. agent-ls makes it with a user namespace that owns it
// (our ids mapped onto themselves) at the session's first command, in a
// child that shares its memory and descriptors and exits at once, and
// holds both by descriptor: no process stands by. Closing the registry
// (the session's end) releases them, as does agent-ls's death, kill -9
// included, and the kernel frees the namespace once the last command in
// it has ended. The helper joins both before it makes its own user, mount
// and PID namespaces, so its user namespace is a child of the session's:
// the command has no capability over the session's network (lo, its
// addresses and routes stay as they are) and drops those of its own. The
// filter then also lets AF_INET and AF_INET6 stream and datagram sockets
// be made, Landlock's TCP rules are off, and their connect and bind go to
// the supervisor like those of Unix sockets, which makes them on its
// duplicate of the caller's socket only when that socket lives in the
// session's namespace (its namespace cookie, Linux 5.14) and so reaches
// nothing else. Abstract Unix sockets belong to a network namespace: the
// host's are out of reach there too (and the supervisor refuses abstract
// names anyway). sendto with an address stays refused (UDP: connect,
// then send). Where the helper enters no namespaces (no user namespaces,
// NoNamespace), the supervisor cannot decide connect and bind, a Policy
// has no registry (`agent-ls sandbox` typed by a person) or the network
// is on, nothing changes: no network at all, or the host's. [Probe] says
// whether it holds here ([Capabilities.SessionNetwork]), and --explain
// says so.
//
// # Platforms and building
//
// The sandbox is Linux's: everything above lives in *_linux.go files and,
// for the helper, in C: *_linux.c files beside them (nsenter_linux.c, the
// constructor; exec_plan_linux.c, the plan; reaper_linux.c, the
// supervising processes; notify_linux.c, notify_sock_linux.c and
// chmod_notify_linux.c, the user notifications; netns_linux.c, the
// session's loopback network; nosuid_linux.c, the
// mounts; pids_exec_linux.c, the process limit), with sandbox_linux.h
// declaring what they share and syscalls_linux.h what older C libraries
// lack. Go calls two C functions, the namespace probe (probe_ns_linux.go)
// and the making of a session's network namespace (netns_cgo_linux.go);
// cgo_linux.go makes this a cgo package, so that cgo compiles the C and
// links it, constructor included,
// into agent-ls and agent-ls-sandbox alike. `make test-c` compiles each C
// file alone with every warning an error (make test runs it); the cgo
// build keeps the compiler's defaults. What needs cgo (libseccomp and the
// C) is built only with cgo; without it Go leaves the .c files out. What
// holds where:
//
//   - Linux with cgo (make build, make release): all of the above.
//   - Linux without cgo: no seccomp, so no sandbox. [Probe] says so
//     ([Capabilities.Unavailable]), the helper refuses every sandboxed
//     command, and an unconfined one (the user approved it) runs directly
//     in a session of its own, which a timeout, an interrupt or [Shutdown]
//     kills as a group; no subreaper catches a daemon that leaves the
//     group, and nothing ends it should agent-ls be killed with SIGKILL.
//   - macOS and other Unix systems: no sandbox (other.go). The helper
//     refuses to run anything; an approved command runs in a session of
//     its own that is killed as a group; nothing ends it should agent-ls be
//     killed with SIGKILL.
//   - Windows: no sandbox either; an approved command runs in a process
//     group of its own, and a timeout, an interrupt or [Shutdown] kills
//     its process only (its children may outlive it).
//
// Wherever [Capabilities.Unavailable] is not empty the agent asks before
// every command, and refuses commands under the approval policy "never"
// and in unattended runs: nothing ever runs unsandboxed unasked.
//
// The seccomp filter uses libseccomp through cgo, so the Linux sandbox
// needs CGO_ENABLED=1, a C compiler, pkg-config and the libseccomp headers
// (Debian: gcc, pkg-config, libseccomp-dev). The resulting binary links
// libseccomp.so.2 dynamically. A fully static binary builds with
//
//	CGO_ENABLED=1 go build -tags netgo,osusergo \
//		-ldflags '-linkmode external -extldflags "-static"' ./cmd/agent-ls
//
// (libseccomp-dev ships the static libseccomp.a).
package sandbox

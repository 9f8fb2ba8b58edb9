// Package sandbox runs commands under the Linux kernel sandbox: Landlock for
// the filesystem, a seccomp filter for the network and process tampering,
// no_new_privs and an empty capability set, and, where the kernel allows
// unprivileged user namespaces, a private mount namespace that keeps .git,
// .agents and .agent-ls read-only inside the writable roots.
//
// Two halves live here. The helper ([Main], reached as `agent-ls sandbox`)
// restricts its own process and then execs the command in place; Landlock
// and seccomp are only ever applied there, never in the server process. The
// runner ([Command]) builds the [Cmd] that starts the helper in its own
// process group, telling it to enter a fresh user and mount namespace when
// the kernel allows (the helper does so from a C constructor, before the Go
// runtime starts threads); [Probe] says what this machine can enforce,
// [LikelyDenied] guesses whether a failure was the sandbox's doing.
//
// # Building
//
// The seccomp filter uses libseccomp through cgo, so building this package
// needs CGO_ENABLED=1, a C compiler, pkg-config and the libseccomp headers
// (Debian: gcc, pkg-config, libseccomp-dev). The resulting binary links
// libseccomp.so.2 dynamically. A fully static binary builds with
//
//	CGO_ENABLED=1 go build -tags netgo,osusergo \
//		-ldflags '-linkmode external -extldflags "-static"' ./cmd/agent-ls
//
// (libseccomp-dev ships the static libseccomp.a).
package sandbox

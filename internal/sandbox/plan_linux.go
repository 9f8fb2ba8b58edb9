package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// A plan is everything the helper does between its start and the exec of
// the command, worked out here, in the runner, where the Go runtime is
// already running: the read-only mounts, the Landlock rules, the compiled
// seccomp program, the command's path and environment. The helper carries
// it out in C from its constructor (exec_plan_linux.c) and never starts the Go
// runtime, which was most of its cost per command.
//
// The plan reaches the helper as a memfd on descriptor 3, a list of
// records: a tag byte, a little-endian uint32 length, the payload.
type plan struct {
	fail       *planFailure // report this and exit instead of running anything
	cwd        string
	path       string   // the command's executable, found on its PATH
	argv       []string // the command's argument vector
	unconfined bool     // danger-full-access: chdir and exec, nothing else
	privateShm uint64   // when set, mount a tmpfs on /dev/shm writable with these rights
	mounts     []planMount
	// nosuid are the writable roots, outermost only, that stay writable
	// once every mount is made nosuid and read-only (nosuid_linux.c);
	// [""] in read-only mode.
	nosuid []string
	// pids is the cgroup.procs of the command's pids cgroup (pidsDir),
	// which the helper joins; else nproc, when not 0, is the RLIMIT_NPROC
	// it sets (pids_linux.go).
	pids     *os.File
	pidsDir  string
	nproc    uint64
	landlock landlockRuleset
	seccomp  []byte // a compiled BPF program (struct sock_filter array)
	// socketRoots are where the supervisor lets Unix sockets connect and
	// bind with the network off (notify_linux.c); set exactly when the
	// seccomp program sends connect and bind to it. A root marked with a
	// leading '+' is one where any socket may be reached
	// (Policy.AllowProjectSockets).
	socketRoots []string
	// sockets is the socket registry the supervisor records its binds in
	// and checks connects against (Policy.Sockets), set with socketRoots;
	// the helper gets it after the cache root.
	sockets *os.File
	// notify says the seccomp program sends set-group-ID chmods to the
	// supervisor (chmod_notify_linux.c), socket roots or not.
	notify      bool
	hasLandlock bool
	// netUser and netNS are the session's user and network namespaces,
	// which the helper joins before its own (netns_linux.go); the plan
	// then begins with the record naming them.
	netUser, netNS *os.File
	// cacheRoot is the toolchain cache root, opened where it was checked;
	// the helper gets it as descriptor 4 (cacheRootRule) and the runner
	// closes it once the helper started.
	cacheRoot *os.File
}

// cacheRootRule names the cache root in the helper's Landlock rules: the
// descriptor the runner passes it, so the rule lands on the directory the
// runner checked, whatever was swapped in on its path since.
const cacheRootRule = "/proc/self/fd/4"

// planFailure is a start-up error the helper reports as its own, with its
// exit code, so the caller sees it exactly as before (ExitNotFound for a
// missing command, ExitSetupFailed when the sandbox cannot be set up).
type planFailure struct {
	code int
	msg  string
}

// planMount pins a protected path read-only in the helper's mount
// namespace: the path itself, or, for a placeholder, the empty directory
// or a read-only /dev/null over it. An anchor is a writable bind of a
// directory onto itself, which only makes it a mount point that cannot be
// renamed (pins_linux.go). A hide covers a folder with an empty
// read-only tmpfs (Policy.Hidden).
type planMount struct {
	path   string
	cover  bool
	anchor bool
	hide   bool
}

// landlockRuleset is a Landlock ruleset worked out for the running kernel's
// ABI: the handled rights and the rules, each already narrowed to what the
// ruleset handles.
type landlockRuleset struct {
	handledFS, handledNet, scoped uint64
	rules                         []landlockRule
}

type landlockRule struct {
	path     string
	access   uint64
	optional bool // a missing path is skipped
}

// The record tags, shared with exec_plan_linux.c.
const (
	tagFail       = 'F'
	tagCwd        = 'C'
	tagPath       = 'P'
	tagArg        = 'A'
	tagUnconfined = 'U'
	tagMount      = 'M'
	tagCover      = 'H'
	tagAnchor     = 'W'
	tagHide       = 'X'
	tagShm        = 'S'
	tagLandlock   = 'L'
	tagRule       = 'R'
	tagRuleOpt    = 'r'
	tagSeccomp    = 'B'
	tagSockRoot   = 'K'
	tagSockReg    = 'Y'
	tagNosuid     = 'N'
	tagPids       = 'G'
	tagNproc      = 'T'
	tagNotify     = 'D'
	tagJoin       = 'J'
)

func (p *plan) encode() []byte {
	var b []byte
	rec := func(tag byte, payload []byte) {
		b = append(b, tag)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
		b = append(b, payload...)
	}
	u64s := func(vs ...uint64) []byte {
		var out []byte
		for _, v := range vs {
			out = binary.LittleEndian.AppendUint64(out, v)
		}
		return out
	}
	if p.netNS != nil {
		// First: the helper's constructor peeks at it alone.
		rec(tagJoin, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(p.fd(p.netUser))), uint32(p.fd(p.netNS))))
	}
	if p.fail != nil {
		rec(tagFail, append([]byte{byte(p.fail.code)}, p.fail.msg...))
		return b
	}
	rec(tagCwd, []byte(p.cwd))
	rec(tagPath, []byte(p.path))
	for _, a := range p.argv {
		rec(tagArg, []byte(a))
	}
	if p.unconfined {
		rec(tagUnconfined, nil)
		return b
	}
	for _, m := range p.mounts {
		tag := byte(tagMount)
		switch {
		case m.anchor:
			tag = tagAnchor
		case m.cover:
			tag = tagCover
		case m.hide:
			tag = tagHide
		}
		rec(tag, []byte(m.path))
	}
	for _, r := range p.nosuid {
		rec(tagNosuid, []byte(r))
	}
	if p.privateShm != 0 {
		rec(tagShm, u64s(p.privateShm))
	}
	if p.hasLandlock {
		l := p.landlock
		rec(tagLandlock, u64s(l.handledFS, l.handledNet, l.scoped))
		for _, r := range l.rules {
			tag := byte(tagRule)
			if r.optional {
				tag = tagRuleOpt
			}
			rec(tag, append(u64s(r.access), r.path...))
		}
	}
	if p.seccomp != nil {
		rec(tagSeccomp, p.seccomp)
	}
	for _, r := range p.socketRoots {
		rec(tagSockRoot, []byte(r))
	}
	if p.sockets != nil {
		rec(tagSockReg, binary.LittleEndian.AppendUint32(nil, uint32(p.fd(p.sockets))))
	}
	if p.notify {
		rec(tagNotify, nil)
	}
	if p.pids != nil {
		rec(tagPids, u64s(uint64(p.fd(p.pids))))
	}
	if p.nproc != 0 {
		rec(tagNproc, u64s(p.nproc))
	}
	return b
}

// planFile puts the encoded plan in a sealed-size memfd for the helper.
func planFile(b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("agent-ls-sandbox-plan", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd for the sandbox plan: %w", err)
	}
	f := os.NewFile(uintptr(fd), "agent-ls-sandbox-plan")
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the sandbox plan: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the sandbox plan: %w", err)
	}
	return f, nil
}

// failPlan is the plan of a command that cannot start: the helper reports
// err with code, as its own error.
func failPlan(code int, err error) *plan {
	return &plan{fail: &planFailure{code: code, msg: err.Error()}}
}

// buildPlan works out what the helper does for a sandboxed command (not
// danger-full-access): env is the command's environment (it gains the
// toolchain caches), held the placeholders the runner put up, inNS whether
// the helper enters its own namespaces. Problems that the helper used to
// report as its own come back as a failing plan, not as an error.
func buildPlan(p Policy, argv, env []string, held []string, inNS bool) (*plan, []string) {
	abi := LandlockABI()
	if abi < 1 {
		return failPlan(ExitSetupFailed, errNoLandlock), env
	}
	if ok, note := seccompAvailable(); !ok {
		return failPlan(ExitSetupFailed, fmt.Errorf("seccomp is unavailable (%s); refusing to run the command unconfined", note)), env
	}
	tmpdir, _ := lookupEnv(env, "TMPDIR")
	b, err := p.boundary(tmpdir)
	if err != nil {
		return failPlan(ExitSetupFailed, err), env
	}
	pl := &plan{cwd: p.Cwd, argv: argv}
	var writable, rules []string
	if p.mode() == WorkspaceWrite {
		writable = b.WritableRoots()
		rules = writable
		if env, pl.cacheRoot, err = commandCaches(p, b, env, writable); err != nil {
			return failPlan(ExitSetupFailed, err), env
		}
		if pl.cacheRoot != nil {
			writable = append(writable[:len(writable):len(writable)], pl.cacheRoot.Name())
			rules = append(rules[:len(rules):len(rules)], cacheRootRule)
		}
	}
	if inNS {
		paths := append(protectedPathsIn(b), lockDirProtection(writable)...)
		paths = append(paths, ownPathsIn(p.Own, writable, true)...)
		pl.mounts = extendMounts(planMounts(paths, held), writable)
		// Last: a folder hidden below a pinned one is covered on top.
		pl.mounts = append(pl.mounts, hiddenMounts(p.Hidden)...)
		pl.nosuid = outermost(writable)
		if p.mode() == WorkspaceWrite {
			pl.privateShm = commandDirRights(abi, p.Network)
		}
		if len(pl.nosuid) == 0 {
			// Read-only mode: the mounts are made nosuid and read-only
			// all the same, with no root to bind writable again.
			pl.nosuid = []string{""}
		}
	} else if ro := ownReadOnlyRoots(p.Own, writable); len(ro) > 0 {
		// No mount namespace to pin agent-ls's own files in: the roots
		// that hold them are not writable at all.
		rules = slices.DeleteFunc(slices.Clone(rules), func(r string) bool {
			return slices.Contains(ro, r) || r == cacheRootRule && slices.Contains(ro, pl.cacheRoot.Name())
		})
	}
	path, code, err := lookPath(argv[0], searchPath(env), p.Cwd)
	if err != nil {
		pl.close()
		return failPlan(code, err), env
	}
	pl.path = path
	if pl.landlock, err = landlockPlan(abi, rules, p.Network); err != nil {
		pl.close()
		return failPlan(ExitSetupFailed, err), env
	}
	loopback := pl.joinNet(p, inNS)
	if loopback {
		// TCP in a namespace with nothing but lo reaches nothing else.
		pl.landlock.handledNet = 0
	}
	pl.hasLandlock = true
	pl.socketRoots = unixSocketRoots(p, b, env, pl.cacheRoot)
	if pl.socketRoots != nil {
		if pl.sockets, err = p.Sockets.handle(); err != nil {
			pl.close()
			return failPlan(ExitSetupFailed, err), env
		}
	}
	if pl.seccomp, err = seccompProgram(p.Network, pl.socketRoots != nil || loopback, loopback); err != nil {
		pl.close()
		return failPlan(ExitSetupFailed, err), env
	}
	pl.notify = setgidDirsNotified()
	pl.limitProcesses(p, inNS)
	return pl, env
}

// outermost are the roots that lie inside no other of roots (all real
// paths), in their order.
func outermost(roots []string) []string {
	var out []string
	for i, r := range roots {
		inside := false
		for j, o := range roots {
			if i != j && (o == "/" && r != "/" || strings.HasPrefix(r, o+"/") || (r == o && j < i)) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, r)
		}
	}
	return out
}

// fd is the descriptor number f has in the helper: files() are passed
// from 4 on, in order.
func (p *plan) fd(f *os.File) int {
	return 4 + slices.Index(p.files(), f)
}

// files are the descriptors the helper gets besides the plan (from 4 on):
// the cache root first (cacheRootRule), then the socket registry, then
// the pids cgroup's cgroup.procs, then the session's namespaces.
func (p *plan) files() []*os.File {
	var fs []*os.File
	for _, f := range []*os.File{p.cacheRoot, p.sockets, p.pids, p.netUser, p.netNS} {
		if f != nil {
			fs = append(fs, f)
		}
	}
	return fs
}

func (p *plan) close() {
	closeAll(p.files())
	p.removeCgroup() // a plan closed is one that will not run
}

// unconfinedPlan is the plan of a danger-full-access command: the helper
// only stands by as its subreaper.
func unconfinedPlan(p Policy, argv, env []string) *plan {
	path, code, err := lookPath(argv[0], searchPath(env), p.Cwd)
	if err != nil {
		return failPlan(code, err)
	}
	return &plan{cwd: p.Cwd, path: path, argv: argv, unconfined: true}
}

// planMounts turns the protected paths into mounts: a placeholder the
// runner holds is covered, an existing path pinned as it is, and a path
// still missing (not creatable by this user, so not by the command) left
// alone. Should a pinned path vanish before the helper mounts it, the
// helper refuses to run the command.
func planMounts(paths []protectedPath, held []string) []planMount {
	isHeld := map[string]bool{}
	for _, h := range held {
		isHeld[filepath.Clean(h)] = true
	}
	var out []planMount
	for _, p := range paths {
		switch {
		case isHeld[p.path]:
			out = append(out, planMount{path: p.path, cover: true})
		case p.missing:
			if _, err := os.Lstat(p.path); errors.Is(err, os.ErrNotExist) {
				continue
			}
			out = append(out, planMount{path: p.path})
		default:
			out = append(out, planMount{path: p.path})
		}
	}
	return out
}

// hiddenMounts covers the hidden folders, made first (0700) when missing
// so that none appears, unhidden, while the command runs. A path that
// is not a folder, or that cannot be made, is left out: what this user
// cannot make holds nothing of agent-ls's.
func hiddenMounts(hidden []string) []planMount {
	var out []planMount
	seen := map[string]bool{}
	for _, h := range hidden {
		if !filepath.IsAbs(h) {
			continue
		}
		h = filepath.Clean(h)
		if _, err := os.Lstat(h); errors.Is(err, os.ErrNotExist) {
			_ = os.MkdirAll(h, 0o700)
		}
		real, err := filepath.EvalSymlinks(h)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		for _, p := range []string{real, h} {
			if !seen[p] {
				seen[p] = true
				out = append(out, planMount{path: p, hide: true})
			}
		}
	}
	return out
}

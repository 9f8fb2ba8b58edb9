package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// A read-only bind mount pins one path to an inode, in one mount: Landlock
// cannot take a subtree out of a writable root, so everything else that
// leads to the same inode, or that could swap another inode in at the
// pinned path, must be closed as well. Besides the protected paths
// themselves, the helper's mount namespace therefore gets:
//
//   - agent-ls's own files and folders (Policy.Own, the agent-ls binary
//     and the helper), pinned like .git wherever they lie inside a
//     writable root;
//   - the same inodes reached through other mounts (a bind mount of the
//     workspace somewhere below /tmp, the same filesystem mounted twice),
//     pinned there too: a bind mount protects its own mount only;
//   - the ancestors of every pinned path that a command could rename
//     (their parent is writable), made mount points of their own by a
//     writable bind mount onto themselves: the kernel refuses to rename
//     or remove a mount point (EBUSY). Without that, `mv proj proj.old &&
//     mkdir -p proj/.git` would put a new .git, with hooks of the
//     command's choosing, where the user's git will look next, and
//     renaming ~/.config would do the same for agent-ls's config. A
//     symbolic link among them is pinned itself, read-only.
//
// Within one mount namespace those are all the names an inode has but
// hard links; a command cannot make a new hard link to a pinned file (a
// link across mounts fails with EXDEV) and cannot mount anything.

// ownPaths are the paths of agent-ls's own that a command under p must
// not write: p.Own and the binaries that run agent-ls and its helper.
func ownPaths(p Policy, helperPath string) []string {
	own := slices.Clone(p.Own)
	if self, err := os.Executable(); err == nil {
		own = append(own, self)
	}
	if helperPath != "" && filepath.IsAbs(helperPath) {
		own = append(own, helperPath)
	}
	return own
}

// ownPathsIn lists the own paths to pin: each one's real path when it
// lies inside a writable root, and the path as given too when it differs
// (a link the command could point elsewhere). With create, a folder
// missing inside a writable root is created, empty and private, so that
// there is something to pin: otherwise a command could create it.
func ownPathsIn(own, writable []string, create bool) []protectedPath {
	var out []protectedPath
	seen := map[string]bool{}
	add := func(path string) {
		if !seen[path] {
			seen[path] = true
			out = append(out, protectedPath{path: path})
		}
	}
	for _, o := range own {
		if !filepath.IsAbs(o) {
			continue
		}
		o = filepath.Clean(o)
		real, err := policy.Resolve(o)
		if err != nil {
			continue
		}
		if policy.Under(real, writable) {
			if _, err := os.Lstat(real); create && errors.Is(err, os.ErrNotExist) {
				if os.MkdirAll(real, 0o700) != nil {
					continue // not creatable by this user, so not by the command
				}
			}
			add(real)
		}
		if o != real {
			if dir, err := policy.Resolve(filepath.Dir(o)); err == nil && policy.Under(dir, writable) {
				add(o)
			}
		}
	}
	return out
}

// ownReadOnlyRoots are the writable roots that hold one of agent-ls's own
// paths (or are one): where no mount namespace can pin them, such a root
// is not writable at all.
func ownReadOnlyRoots(own, writable []string) []string {
	var out []string
	for _, w := range writable {
		for _, o := range own {
			real, err := policy.Resolve(filepath.Clean(o))
			if err == nil && filepath.IsAbs(o) && policy.Under(real, []string{w}) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

// extendMounts adds to the pins the other paths to their inodes that lie
// inside a writable root, and the anchors that keep their ancestors from
// being renamed (see above). Anchors come first, outermost first, so
// that every pin lands in the mount a later lookup finds.
func extendMounts(ms []planMount, writable []string) []planMount {
	if len(ms) == 0 {
		return ms
	}
	mounts := readMountinfo()
	canon := map[string]string{}
	canonical := func(path string) string {
		c, ok := canon[path]
		if !ok {
			c = canonicalPath(path)
			canon[path] = c
		}
		return c
	}
	pins := slices.Clone(ms)
	seen := map[string]bool{}
	for _, m := range ms {
		seen[m.path] = true
	}
	for _, m := range ms {
		for _, a := range aliasesOf(canonical(m.path), mounts) {
			if !seen[a] && policy.Under(a, writable) {
				seen[a] = true
				pins = append(pins, planMount{path: a, cover: m.cover})
			}
		}
	}
	var anchors []planMount
	for _, m := range pins {
		for _, d := range renamableAncestors(m.path, canonical(m.path), writable) {
			if seen[d] {
				continue
			}
			seen[d] = true
			if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				pins = append(pins, planMount{path: d})
			} else {
				anchors = append(anchors, planMount{path: d, anchor: true})
			}
		}
	}
	slices.SortStableFunc(anchors, func(a, b planMount) int { return len(a.path) - len(b.path) })
	return append(anchors, pins...)
}

// renamableAncestors are the directories above path whose parent lies
// inside a writable root, so that a command could rename them away and
// put others in their place: those of its real path, and, where path is
// reached through symbolic links, those links themselves.
// canon is path with the links of its folder resolved (canonicalPath).
func renamableAncestors(path, canon string, writable []string) []string {
	var out []string
	if canon == "" {
		return nil
	}
	// The real path's ancestors are real: no further resolving.
	for d := filepath.Dir(canon); d != "/"; d = filepath.Dir(d) {
		if policy.Under(filepath.Dir(d), writable) {
			out = append(out, d)
		}
	}
	if filepath.Dir(canon) == filepath.Dir(filepath.Clean(path)) {
		return out
	}
	for d := filepath.Dir(filepath.Clean(path)); d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Lstat(d); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		if parent, err := policy.Resolve(filepath.Dir(d)); err == nil && policy.Under(parent, writable) {
			out = append(out, d)
		}
	}
	return out
}

// mountEntry is a line of /proc/self/mountinfo: which part (root) of
// which filesystem (dev) is mounted where (point).
type mountEntry struct {
	dev, root, point string
}

// readMountinfo reads this process's mount table (the helper's namespace
// starts as a copy of it); nil when it cannot be read. It is read for
// every command: the table can change at any time, and the kernel's
// change notice (POLLPRI on an open mountinfo) proved unreliable here.
func readMountinfo() []mountEntry {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	return parseMountinfo(data)
}

func parseMountinfo(data []byte) []mountEntry {
	var out []mountEntry
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 0, 4096), 1<<20)
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) < 5 {
			continue
		}
		out = append(out, mountEntry{dev: f[2], root: unescapeMountinfo(f[3]), point: unescapeMountinfo(f[4])})
	}
	return out
}

// unescapeMountinfo undoes the octal escapes (\040 for a space) of a
// mountinfo path.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) && isOctal(s[i+1:i+4]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < 3; i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return true
}

// aliasesOf are the other paths, through other mounts of the same
// filesystem, that lead to the inode at canon (a canonicalPath, itself
// not followed if a link). Each is checked to be the very inode: a mount
// stacked over part of another hides what lies below it.
func aliasesOf(canon string, mounts []mountEntry) []string {
	var st unix.Stat_t
	if canon == "" || unix.Lstat(canon, &st) != nil {
		return nil
	}
	// The mount path is in: the deepest mount point above it, the last
	// one mounted there.
	best := -1
	for i, m := range mounts {
		if withinPath(m.point, canon) && (best < 0 || len(m.point) >= len(mounts[best].point)) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	in := mounts[best]
	fsPath := filepath.Join(in.root, relPath(in.point, canon))
	var out []string
	for _, m := range mounts {
		if m.dev != in.dev || !withinPath(m.root, fsPath) {
			continue
		}
		alias := filepath.Join(m.point, relPath(m.root, fsPath))
		if alias == canon || slices.Contains(out, alias) {
			continue
		}
		var ast unix.Stat_t
		if unix.Lstat(alias, &ast) == nil && ast.Dev == st.Dev && ast.Ino == st.Ino {
			out = append(out, alias)
		}
	}
	return out
}

// canonicalPath is path with the symlinks of its directory resolved (the
// last component kept as it is); "" when that fails.
func canonicalPath(path string) string {
	dir, err := policy.Resolve(filepath.Dir(filepath.Clean(path)))
	if err != nil {
		return ""
	}
	return filepath.Join(dir, filepath.Base(path))
}

func withinPath(dir, path string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, dir+"/")
}

func relPath(dir, path string) string {
	if path == dir {
		return ""
	}
	if dir == "/" {
		return path[1:]
	}
	return path[len(dir)+1:]
}

package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links followed while resolving one path, as
// the kernel's ELOOP limit does.
const maxLinks = 40

// ErrLinkLoop is returned for a path whose symbolic links do not end.
var ErrLinkLoop = errors.New("too many levels of symbolic links")

// Resolve returns the real path that an absolute path names, the way the
// kernel would resolve it when creating or writing the file: every
// symbolic link is followed (a dangling final link too: writing through it
// creates its target), ".." is applied to the real directory reached so
// far, not to the text, and components that do not exist yet are kept as
// they are (they cannot be links). The result is clean and absolute.
func Resolve(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("resolve %q: not an absolute path", path)
	}
	rest := splitPath(path)
	real := "/"
	links := 0
	missing := false // a component did not exist: the rest is literal
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			real = filepath.Dir(real)
			continue
		}
		next := filepath.Join(real, name)
		if missing {
			real = next
			continue
		}
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			missing = true
			real = next
			continue
		case err != nil:
			return "", fmt.Errorf("resolve %s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			real = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("resolve %s: %w", path, ErrLinkLoop)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", path, err)
		}
		if filepath.IsAbs(target) {
			real = "/"
		}
		rest = append(splitPath(target), rest...)
	}
	return real, nil
}

func splitPath(p string) []string {
	return strings.Split(p, "/")
}

// within reports whether path is dir or below it; both must be clean and
// absolute.
func within(dir, path string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// relBelow returns path relative to dir, which contains it.
func relBelow(dir, path string) string {
	if path == dir {
		return ""
	}
	if dir == "/" {
		return path[1:]
	}
	return path[len(dir)+1:]
}

//go:build !unix

package checkpoint

import (
	"errors"
	"os"
)

// errNotRegular: the store holds something other than a regular file
// where a content belongs.
var errNotRegular = errors.New("not a regular file")

// readNoFollow reads the regular file at p, refusing a link.
func readNoFollow(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return os.ReadFile(p)
}

//go:build !linux

package search

import (
	"io/fs"
	"os"
)

// dirHandle is a directory the walk lists: by its path, here.
type dirHandle struct{ abs string }

// openDirJob returns the directory of job; listing it opens it.
func openDirJob(job dirJob) (*dirHandle, error) { return &dirHandle{abs: job.abs}, nil }

func (d *dirHandle) retain()  {}
func (d *dirHandle) release() {}

// entries lists d, giving each entry's name and type as the directory
// holds them. The order is the system's.
func (d *dirHandle) entries(each func(name string, typ fs.FileMode)) error {
	f, err := os.Open(d.abs)
	if err != nil {
		return err
	}
	des, err := f.ReadDir(-1)
	f.Close()
	for _, e := range des {
		each(e.Name(), e.Type())
	}
	if len(des) > 0 {
		return nil
	}
	return err
}

// openFile opens the regular file f the walk found and returns its size,
// as openDisk does.
func openFile(f walkFile, limit int64) (diskFile, int64, error) {
	return openDisk(f.Abs, limit)
}

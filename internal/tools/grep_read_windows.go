package tools

import (
	"fmt"
	"io"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// readDisk reads the file at path into buf (grown when too small),
// refusing one over MaxGrepFileSize.
func readDisk(path string, buf []byte) ([]byte, error) {
	f, fi, err := workspace.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > MaxGrepFileSize {
		return nil, fmt.Errorf("%w (%s, over %s)", errTooLarge, byteSize(fi.Size()), byteSize(MaxGrepFileSize))
	}
	if cap(buf) < int(fi.Size())+1 {
		buf = make([]byte, 0, int(fi.Size())+512)
	}
	buf = buf[:cap(buf)]
	got := 0
	for {
		k, err := f.Read(buf[got:])
		got += k
		if err == io.EOF {
			return buf[:got], nil
		}
		if err != nil {
			return nil, err
		}
		if got == len(buf) {
			if int64(got) > MaxGrepFileSize {
				return nil, fmt.Errorf("%w (over %s)", errTooLarge, byteSize(MaxGrepFileSize))
			}
			buf = append(buf, 0)[:cap(buf)]
		}
	}
}

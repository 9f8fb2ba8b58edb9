package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

//go:embed read_file.md
var readFileDescription string

// ReadFile returns numbered lines of a file, read through the workspace
// view, streaming from disk so that reading near the end of a huge file
// costs a scan, not its size in memory.
type ReadFile struct{}

const defaultReadLimit = 2000

var readFileSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The file to read, relative to the working directory or absolute."},
    "offset": {"type": "integer", "minimum": 1, "description": "The first line to return, 1-based. Default 1."},
    "limit": {"type": "integer", "minimum": 1, "description": "The maximum number of lines to return. Default 2000."}
  },
  "required": ["file_path"],
  "additionalProperties": false
}`)

func (ReadFile) Spec() Spec {
	return Spec{Type: Function, Name: "read_file", Description: readFileDescription, Parameters: readFileSchema}
}

func (ReadFile) Kind() event.ToolKind { return event.KindRead }
func (ReadFile) Mutating(*Call) bool  { return false }

type readFileArgs struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
}

func (ReadFile) Title(call *Call) string {
	var a readFileArgs
	_ = json.Unmarshal(call.Arguments, &a)
	return "Read " + a.FilePath
}

// sniffLen is how much of a file decides whether it is binary.
const sniffLen = 8 << 10

func (ReadFile) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a readFileArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("read_file: invalid arguments: %w", err)
	}
	if a.Offset == 0 {
		a.Offset = 1
	}
	if a.Limit == 0 {
		a.Limit = defaultReadLimit
	}
	if a.Offset < 1 || a.Limit < 1 {
		return Output{}, errors.New("read_file: offset is a 1-based line number and limit must be at least 1")
	}
	t, err := resolvePath(env, a.FilePath)
	if err != nil {
		return Output{}, fmt.Errorf("read_file: %w", err)
	}
	var (
		src  io.Reader
		size int64
	)
	if doc, ok := env.files().Document(t.Abs); ok {
		src, size = strings.NewReader(doc.Text), int64(len(doc.Text))
	} else {
		f, fi, err := workspace.OpenRegular(t.Abs)
		var nr *workspace.NotRegularError
		switch {
		case errors.As(err, &nr) && nr.Mode.IsDir():
			return Output{}, fmt.Errorf("read_file: %s is a directory; use list_dir to see what it holds", t.Display)
		case errors.As(err, &nr):
			return Output{}, fmt.Errorf("read_file: %s is %s, not a regular file; it was not read", t.Display, workspace.KindOf(nr.Mode))
		case err != nil:
			return Output{}, fmt.Errorf("read_file: %s: %w", t.Display, plainErr(err))
		}
		defer f.Close()
		src, size = f, fi.Size()
	}
	r := bufio.NewReaderSize(src, 64<<10)
	head, _ := r.Peek(sniffLen)
	if isBinary(head) {
		return Output{}, fmt.Errorf("read_file: %s is a binary file (%s, %s); it cannot be shown as text%s",
			t.Display, textcut.Size(size), http.DetectContentType(head), imageHint(head))
	}
	return readLines(ctx, r, t.Display, a.Offset, a.Limit, env.limits())
}

// readLines renders lines offset..offset+limit-1 of r within lim.
func readLines(ctx context.Context, r *bufio.Reader, name string, offset, limit int, lim OutputLimits) (Output, error) {
	b := newBudget(lim)
	n, last := 0, 0 // lines consumed, last line shown
	for {
		line, err := r.ReadSlice('\n')
		full := len(line)
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: keep its head, skip the rest.
			head := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				full += len(line)
			}
			full -= len(line) - len(bytes.TrimRight(line, "\r\n"))
			line = head
		} else {
			full = len(bytes.TrimRight(line, "\r\n"))
		}
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return Output{}, fmt.Errorf("read_file: %s: %w", name, err)
		}
		n++
		if n%65536 == 0 && ctx.Err() != nil {
			return Output{}, ctx.Err()
		}
		if n >= offset {
			text := cutLineOf(bytes.TrimRight(line, "\r\n"), full, lim.MaxLineBytes)
			if b.Add(fmt.Sprintf("L%d: %s", n, text)) {
				last = n
			}
		}
		if err != nil {
			break
		}
		if n >= offset && (n >= offset+limit-1 || b.Full()) {
			// Everything wanted is collected; only count the rest.
			rest, err := countLines(r)
			if err != nil {
				return Output{}, fmt.Errorf("read_file: %s: %w", name, err)
			}
			n += rest
			break
		}
	}
	total := n
	switch {
	case total == 0:
		return Output{Text: fmt.Sprintf("%s is empty.", name)}, nil
	case offset > total:
		return Output{}, fmt.Errorf("read_file: offset %d is past the end of %s, which has %d lines", offset, name, total)
	case last < total:
		why := "the limit of " + itoa(limit) + " lines"
		if b.Full() {
			why = b.capReason()
		}
		return Output{Text: b.String(fmt.Sprintf("[Showed lines %d-%d of %d (stopped at %s). Call read_file with offset=%d to read on.]", offset, last, total, why, last+1))}, nil
	}
	return Output{Text: b.String("")}, nil
}

// countLines counts the lines left in r; a last line without a newline
// counts too.
func countLines(r *bufio.Reader) (int, error) {
	buf := make([]byte, 256<<10)
	n, lastByte := 0, byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			lastByte = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if lastByte != '\n' {
		n++
	}
	return n, nil
}

// isBinary reports whether the start of a file looks like binary data: a
// NUL byte, as git and ripgrep decide.
func isBinary(head []byte) bool { return bytes.IndexByte(head, 0) >= 0 }

func imageHint(head []byte) string {
	if imageType(head) != "" {
		return "; use view_image to look at it"
	}
	return ""
}

// plainErr drops the *PathError wrapping (the path is already named).
func plainErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

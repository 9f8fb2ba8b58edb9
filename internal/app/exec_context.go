package app

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// addDirFlag registers exec's --add-dir (Codex's flag, repeatable): a
// further workspace folder of the session.
func addDirFlag(fs *flag.FlagSet) *[]string {
	var dirs []string
	fs.Func("add-dir", "a further workspace folder, `DIR` (repeatable): inside the session's workspace, writable with its own protected names unless it is / or your home folder (or holds it) or one of agent-ls's own folders", func(v string) error {
		abs, err := filepath.Abs(v)
		if err != nil {
			return fmt.Errorf("--add-dir: %w", err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return fmt.Errorf("--add-dir %s: not a directory", v)
		}
		dirs = append(dirs, abs)
		return nil
	})
	return &dirs
}

// execFolders gives the session the --add-dir folders (a resumed one
// too) and tells the terminal about those that stay read-only.
func execFolders(mgr *agent.Manager, info agent.SessionInfo, o execOptions, stderr io.Writer) error {
	if len(o.addDirs) == 0 {
		return nil
	}
	if _, err := mgr.UpdateSession(info.SessionID, func(so *agent.SessionOptions) { so.Folders = o.addDirs }); err != nil {
		return err
	}
	if o.jsonOut {
		return nil
	}
	for _, d := range o.addDirs {
		if msg := mgr.FolderNotice(d, info.SandboxMode); msg != "" {
			fmt.Fprintf(stderr, "agent-ls exec: %s\n", strings.TrimPrefix(msg, "agent-ls: "))
		}
	}
	return nil
}

// Bounds of what an @-mention in exec's prompt attaches.
const (
	maxMentionFileBytes  = 256 << 10
	maxMentionImageBytes = 20 << 20
)

// execInput is the turn's input for exec's prompt: each @path in it
// (after a space or at the start) that names a file, relative to cwd or
// absolute, goes with the prompt as context, an image as an image; the
// prompt keeps the @path. A mention of something else (a folder, a path
// that does not exist, an email address) stays text; a file that cannot
// be attached is said on stderr.
func execInput(prompt, cwd string, stderr io.Writer) agent.TurnInput {
	in := agent.TurnInput{Prompt: prompt}
	seen := map[string]bool{}
	for _, path := range mentionedPaths(prompt, cwd) {
		if seen[path] {
			continue
		}
		seen[path] = true
		if isImagePath(path) {
			url, err := imageData(path)
			if err != nil {
				fmt.Fprintf(stderr, "agent-ls exec: @%s: %s\n", path, err)
				continue
			}
			in.Images = append(in.Images, url)
			continue
		}
		data, err := readMention(path, maxMentionFileBytes)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "agent-ls exec: @%s: %s\n", path, err)
			continue
		case len(data) > maxMentionFileBytes:
			fmt.Fprintf(stderr, "agent-ls exec: @%s is over %d KiB: not attached (the model can read it)\n", path, maxMentionFileBytes>>10)
			continue
		case !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0:
			fmt.Fprintf(stderr, "agent-ls exec: @%s is not text: not attached\n", path)
			continue
		}
		in.Context = append(in.Context, agent.ContextItem{Path: path, Text: string(data)})
	}
	return in
}

// mentionedPaths are the regular files the prompt's @-mentions name,
// absolute; trailing punctuation that is not part of a file's name is
// left out.
func mentionedPaths(prompt, cwd string) []string {
	var out []string
	for _, word := range strings.Fields(prompt) {
		rest, ok := strings.CutPrefix(word, "@")
		if !ok || rest == "" {
			continue
		}
		for cand := rest; cand != ""; cand = cand[:len(cand)-1] {
			p := cand
			if strings.HasPrefix(p, "~/") {
				if home, err := os.UserHomeDir(); err == nil {
					p = filepath.Join(home, p[2:])
				}
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				out = append(out, filepath.Clean(p))
				break
			}
			if !strings.ContainsRune(".,;:!?)]}'\"", rune(cand[len(cand)-1])) {
				break
			}
		}
	}
	return out
}

// isImagePath: the file's name says it is an image.
func isImagePath(path string) bool {
	return strings.HasPrefix(mime.TypeByExtension(strings.ToLower(filepath.Ext(path))), "image/")
}

// readMention reads a mentioned file, at most one byte past max: a FIFO,
// a device or a link to one (/dev/zero) is refused rather than read
// without end.
func readMention(path string, max int64) ([]byte, error) {
	// Stat before open: opening a FIFO would wait for a writer.
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max+1))
}

// imageData reads an image file as the data URL the model takes.
func imageData(path string) (string, error) {
	b, err := readMention(path, maxMentionImageBytes)
	if err != nil {
		return "", err
	}
	if len(b) > maxMentionImageBytes {
		return "", fmt.Errorf("larger than %d MiB", maxMentionImageBytes>>20)
	}
	typ, _, _ := strings.Cut(http.DetectContentType(b), ";")
	if !strings.HasPrefix(typ, "image/") {
		return "", errors.New("not an image")
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}

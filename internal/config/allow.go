package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// AddAllowedDomain adds entry to [sandbox_workspace_write]
// allowed_domains in the config file at path (the user's), by a textual
// edit that keeps every other byte of the file: comments, order and
// spacing. A symlink is followed and the file it names is edited; a
// missing file is made. Writers are kept apart by a lock file beside the
// file, and the new text replaces the old by a rename. The edit is
// refused, and the file left as it was, when the result would not read
// back with entry in allowed_domains (the key written in a form the edit
// does not know, such as an inline table).
func AddAllowedDomain(path, entry string) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("config: %w", err)
	}
	if allowedIn(old, entry) {
		return nil
	}
	text := addAllowed(string(old), entry)
	if !allowedIn([]byte(text), entry) {
		return fmt.Errorf("config: %s: cannot add %q to [sandbox_workspace_write] allowed_domains by an edit that keeps the file as it is", path, entry)
	}
	return replaceFile(path, []byte(text))
}

// allowedIn says whether the config text allows entry.
func allowedIn(text []byte, entry string) bool {
	var c struct {
		SW struct {
			Allowed []string `toml:"allowed_domains"`
		} `toml:"sandbox_workspace_write"`
	}
	return toml.Unmarshal(text, &c) == nil && slices.Contains(c.SW.Allowed, entry)
}

var (
	swHeader    = regexp.MustCompile(`^[ \t]*\[[ \t]*sandbox_workspace_write[ \t]*\][ \t]*(#.*)?$`)
	tableHeader = regexp.MustCompile(`^[ \t]*\[`)
	allowedKey  = regexp.MustCompile(`^[ \t]*allowed_domains[ \t]*=[ \t]*\[`)
)

// addAllowed is text with entry added to allowed_domains: into the
// array where the table has one, as a new key under the table's header
// where it has none, and as a new table at the end otherwise.
func addAllowed(text, entry string) string {
	lines := strings.SplitAfter(text, "\n")
	quoted := strconv.Quote(entry)
	for i, l := range lines {
		if !swHeader.MatchString(strings.TrimRight(l, "\r\n")) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if tableHeader.MatchString(lines[j]) && !allowedKey.MatchString(lines[j]) {
				break
			}
			if allowedKey.MatchString(lines[j]) {
				off := len(strings.Join(lines[:j], ""))
				if end := arrayEnd(text, off+strings.Index(lines[j], "[")); end > 0 {
					sep := ", "
					if strings.TrimSpace(text[off+strings.Index(lines[j], "[")+1:end]) == "" {
						sep = ""
					} else if strings.HasSuffix(strings.TrimRight(text[:end], " \t\r\n"), ",") {
						sep = " "
					}
					return text[:end] + sep + quoted + text[end:]
				}
				return text
			}
		}
		eol := ""
		if !strings.HasSuffix(l, "\n") {
			eol = "\n"
		}
		return strings.Join(lines[:i+1], "") + eol + "allowed_domains = [" + quoted + "]\n" + strings.Join(lines[i+1:], "")
	}
	sep := ""
	if text != "" && !strings.HasSuffix(text, "\n") {
		sep = "\n"
	}
	if text != "" {
		sep += "\n"
	}
	return text + sep + "[sandbox_workspace_write]\nallowed_domains = [" + quoted + "]\n"
}

// arrayEnd is the offset of the "]" that closes the array opening at
// text[open], skipping strings and comments; -1 when there is none.
func arrayEnd(text string, open int) int {
	depth := 0
	for i := open; i < len(text); i++ {
		switch c := text[i]; c {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return i
			}
		case '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case '"', '\'':
			for i++; i < len(text) && text[i] != c; i++ {
				if c == '"' && text[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}

// lockFile takes the lock file at path (made exclusively), waiting up to
// five seconds for another writer; a lock older than a minute is a dead
// writer's and is taken over.
func lockFile(path string) (func(), error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("config: lock: %w", err)
		}
		if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > time.Minute {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("config: %s is held by another writer", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// replaceFile writes data to path through a temporary file and a
// rename, keeping the file's mode.
func replaceFile(path string, data []byte) error {
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.toml")
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("config: %w", err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

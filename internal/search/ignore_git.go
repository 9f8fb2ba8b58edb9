package search

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// gitExcludes is the bottom of the ignore chain of the git repository at
// root: the rules git applies under every .gitignore, lowest precedence
// first: core.excludesFile (by default $XDG_CONFIG_HOME/git/ignore or
// ~/.config/git/ignore), then .git/info/exclude. Both match relative to
// root. It is nil when root holds no .git.
func gitExcludes(root string, getenv func(string) string) *ignoreStack {
	gitDir := gitDirOf(root)
	if gitDir == "" {
		return nil
	}
	common := gitDir
	if b, err := readRegular(filepath.Join(gitDir, "commondir")); err == nil {
		// A linked worktree shares info/ and config with the main one.
		common = absFrom(gitDir, strings.TrimSpace(string(b)))
	}
	var s *ignoreStack
	if f := excludesFile(root, common, getenv); f != "" {
		s = s.push(root, f)
	}
	return s.push(root, filepath.Join(common, "info", "exclude"))
}

// gitDirOf returns the git directory of the work tree at root: root/.git,
// or where a .git file ("gitdir: PATH") points; "" when there is none.
func gitDirOf(root string) string {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Stat(dotGit)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return dotGit
	}
	b, err := readRegular(dotGit)
	if err != nil {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	return absFrom(root, strings.TrimSpace(dir))
}

func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// excludesFile returns the core.excludesFile git uses for the repository
// whose common git directory is common: the last value set in the
// system, global and repository config files, else the default. Config
// includes are not followed.
func excludesFile(root, common string, getenv func(string) string) string {
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var files []string
	if getenv("GIT_CONFIG_NOSYSTEM") == "" {
		files = append(files, "/etc/gitconfig")
	}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	files = append(files, filepath.Join(common, "config"))
	value := ""
	for _, f := range files {
		if v, ok := configValue(f, "core", "excludesfile"); ok {
			value = v
		}
	}
	switch {
	case value == "" && xdg != "":
		return filepath.Join(xdg, "git", "ignore")
	case value == "":
		return ""
	case value == "~" || strings.HasPrefix(value, "~/"):
		return filepath.Join(home, value[1:])
	}
	return absFrom(root, value)
}

// configValue returns the last value of section.key in the git config
// file at path (names compared ignoring case, subsections not matched).
func configValue(path, section, key string) (string, bool) {
	data, err := readRegular(path)
	if err != nil {
		return "", false
	}
	var value string
	found, in := false, false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "["), "]")
			in = strings.EqualFold(strings.TrimSpace(name), section)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !in || !ok || !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		value, found = configString(strings.TrimSpace(v)), true
	}
	return value, found
}

// configString decodes a git config value: quotes dropped, \" \\ \t \n
// unescaped, a # or ; outside quotes starting a comment.
func configString(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

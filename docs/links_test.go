package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink is a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestRelativeLinks checks that every relative link of the README and of
// the pages in docs/ leads to a file of the repository, and, with a
// #fragment into a Markdown file, to one of its headings (as GitHub
// names them), so that moving text between pages breaks no link.
func TestRelativeLinks(t *testing.T) {
	root := moduleRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for _, m := range mdLink.FindAllStringSubmatch(withoutCode(string(b)), -1) {
			if msg := checkLink(page, m[1]); msg != "" {
				t.Errorf("%s: link %s: %s", rel, m[1], msg)
			}
		}
	}
}

// checkLink returns what is wrong with target, a link on page, or "".
func checkLink(page, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	path, fragment, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
	}
	if _, err := os.Stat(file); err != nil {
		return "no such file"
	}
	if fragment == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	if !headingAnchors(string(b))[fragment] {
		return "no heading #" + fragment + " in " + filepath.Base(file)
	}
	return ""
}

// withoutCode returns md without its fenced code blocks.
func withoutCode(md string) string {
	var out strings.Builder
	inCode := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if !inCode {
			out.WriteString(line + "\n")
		}
	}
	return out.String()
}

// headingAnchors returns the anchors GitHub gives md's headings: lower
// case, punctuation dropped, spaces as hyphens, a repeated one numbered.
func headingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	for _, line := range strings.Split(withoutCode(md), "\n") {
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			continue
		}
		text = strings.TrimSpace(strings.TrimLeft(text, "#"))
		var slug strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				slug.WriteRune(r)
			case r == ' ':
				slug.WriteRune('-')
			}
		}
		s := slug.String()
		if n := count[s]; n > 0 {
			anchors[s+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[s] = true
		}
		count[s]++
	}
	return anchors
}

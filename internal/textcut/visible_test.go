package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestVisible(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, wantLine string
	}{
		{"plain ASCII", "ls -la", "ls -la", ""},
		{"newline and tab kept", "a\tb\nc", "a\tb\nc", `a\tb\nc`},
		{"carriage return", "rm -rf ~ \r? run ls", `rm -rf ~ \r? run ls`, ""},
		{"CSI erase line", "x\x1b[2Ky", `x\x1b[2Ky`, ""},
		{"clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, ""},
		{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\a`, ""},
		{"OSC 8 link", "\x1b]8;;http://x\x1b\\t\x1b]8;;\x1b\\", `\x1b]8;;http://x\x1b\t\x1b]8;;\x1b\`, ""},
		{"other C0", "\x00\x01\b\f\v\x1f", `\x00\x01\b\f\v\x1f`, ""},
		{"DEL", "a\x7fb", `a\x7fb`, ""},
		{"C1 CSI and OSC", "a\u009b2Jb\u009d0;t\u009c", `a\u009b2Jb\u009d0;t\u009c`, ""},
		{"C1 bounds", "\u0080\u009f\u00a0", `\u0080\u009f` + "\u00a0", ""},
		{"bidi overrides", "ls \u202eaxt.exe", `ls \u202eaxt.exe`, ""},
		{"bidi embeddings", "\u202a\u202b\u202c\u202d", `\u202a\u202b\u202c\u202d`, ""},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`, ""},
		{"zero width and marks", "r\u200bm\u200c\u200d\u200e\u200f", `r\u200bm\u200c\u200d\u200e\u200f`, ""},
		{"neighbours kept", "\u200a\u2010\u2029\u2065\u206a", "\u200a\u2010\u2029\u2065\u206a", ""},
		{"UTF-8 kept", "héllo, 世界 🙂 ✓ ▸", "héllo, 世界 🙂 ✓ ▸", ""},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`, ""},
		{"raw 8-bit CSI byte", "a\x9b2J", `a\x9b2J`, ""},
		{"overlong encoding", "\xc0\xaf", `\xc0\xaf`, ""},
		{"surrogate half", "\xed\xa0\x80", `\xed\xa0\x80`, ""},
		{"backslash kept", `C:\x1b\n`, `C:\x1b\n`, ""},
		{"empty", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Visible(tc.in); got != tc.want {
				t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
			}
			wantLine := tc.wantLine
			if wantLine == "" {
				wantLine = tc.want
			}
			if got := VisibleLine(tc.in); got != wantLine {
				t.Errorf("VisibleLine(%q) = %q, want %q", tc.in, got, wantLine)
			}
			for _, got := range []string{Visible(tc.in), VisibleLine(tc.in)} {
				if !utf8.ValidString(got) {
					t.Errorf("not valid UTF-8: %q", got)
				}
				if i := firstHidden(got, false); i >= 0 {
					t.Errorf("%q still has a hidden character at %d", got, i)
				}
			}
		})
	}
}

// Text with nothing to escape comes back as it is, without a copy.
func TestVisibleKeepsCleanText(t *testing.T) {
	s := strings.Repeat("a clean line, with ünïcode ✓\n\t", 1000)
	if n := testing.AllocsPerRun(10, func() { _ = Visible(s) }); n != 0 {
		t.Errorf("Visible of clean text allocated %v times", n)
	}
	if got := Visible(s); got != s {
		t.Error("clean text changed")
	}
}

// A huge input is escaped whole, in one pass (linear: a quadratic
// escaper would not finish 4 MiB in the test's time), and nothing of it
// is lost.
func TestVisibleHugeInput(t *testing.T) {
	unit := "text \x1b[2J more \u202e ✓ \xff\n"
	s := strings.Repeat(unit, (4<<20)/len(unit))
	got := Visible(s)
	wantUnit := `text \x1b[2J more \u202e ✓ \xff` + "\n"
	if got != strings.Repeat(wantUnit, (4<<20)/len(unit)) {
		t.Fatalf("huge input escaped wrong (%d bytes in, %d out)", len(s), len(got))
	}
	if i := firstHidden(got, false); i >= 0 {
		t.Errorf("hidden character left at %d", i)
	}
	// One allocation for the result, grown at most a few times.
	if n := testing.AllocsPerRun(2, func() { _ = Visible(s) }); n > 8 {
		t.Errorf("Visible of a huge input allocated %v times", n)
	}
}

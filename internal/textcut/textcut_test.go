package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 4, "hell…"},
		{"Grüß dich", 3, "Gr…"}, // ü is two bytes: not split
		{"Grüß dich", 4, "Grü…"},
		{"😀😀", 5, "😀…"},
		{"😀", 0, "…"},
	} {
		if got := Cut(tc.s, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	long := strings.Repeat("é", 1000)
	for n := 0; n < 50; n++ {
		if p := Prefix(long, n); !utf8.ValidString(p) || len(p) > n {
			t.Fatalf("Prefix(%d) = %q", n, p)
		}
	}
}

func TestFirstLine(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"  one  ", 0, "one"},
		{"one\ntwo", 0, "one …"},
		{"one\n\n  ", 0, "one"},
		{"\n\nfirst\nsecond", 0, "first …"},
		{"ééééé\nx", 4, "éé…"},
	} {
		if got := Summary(tc.s, tc.n); got != tc.want {
			t.Errorf("Summary(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		want := strings.TrimSuffix(strings.TrimSuffix(tc.want, "…"), " ")
		if tc.n > 0 {
			want = "éé…"
		}
		if got := FirstLine(tc.s, tc.n); got != want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", tc.s, tc.n, got, want)
		}
	}
}

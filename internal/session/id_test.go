package session

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidID checks the hand-written validator against the rule it
// replaces, on the edges and on every byte in every position class.
func TestValidID(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)
	cases := []string{"", "a", "Z9", "0", "_a", ".a", "-a", "a_b.c-d", "a/b", "../x", "a\x00", "a b",
		"é", "aé", strings.Repeat("a", 128), strings.Repeat("a", 129), "20261126-abc", "a\n"}
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "a"+string([]byte{byte(c)}))
	}
	for _, id := range cases {
		if got, want := validID(id), rule.MatchString(id); got != want {
			t.Errorf("validID(%q) = %v, the rule says %v", id, got, want)
		}
	}
}

package app

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

const turnDiff = `--- a/main.go
+++ b/main.go
@@ -1,3 +1,4 @@
 package main
-// old
+// new
+// --- not a header
 func main() {}
--- /dev/null
+++ b/notes.txt
@@ -0,0 +1,2 @@
+one
+two
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
\ No newline at end of file
`

// TestDiffStats counts each file's added and removed lines by its hunks'
// headers, so that a changed line reading "--- ..." is a line, not a file.
func TestDiffStats(t *testing.T) {
	got := diffStats(turnDiff)
	want := []fileStat{
		{name: "main.go", additions: 2, deletions: 1},
		{name: "notes.txt", additions: 2, added: true},
		{name: "gone.txt", deletions: 1, deleted: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diffStats = %+v, want %+v", got, want)
	}
	if diffStats("") != nil {
		t.Error("an empty diff has files")
	}
}

// TestTurnChangesShown: the end of a turn lists the changed files with
// their counts on stderr; --diff adds the diff on stdout.
func TestTurnChangesShown(t *testing.T) {
	for _, showDiff := range []bool{false, true} {
		var out, errOut bytes.Buffer
		fe := newTermFrontend(&out, &errOut, false)
		fe.showDiff = showDiff
		fe.Event(event.Event{Payload: event.TurnCompleted{Status: event.StatusCompleted, Diff: turnDiff}})
		for _, want := range []string{"files changed: 3", "main.go    +2 -1\n", "notes.txt  +2 -0 (new)", "gone.txt   +0 -1 (deleted)"} {
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
			}
		}
		if got := out.String() == turnDiff; got != showDiff {
			t.Errorf("--diff %v: stdout %q", showDiff, out.String())
		}
	}
}

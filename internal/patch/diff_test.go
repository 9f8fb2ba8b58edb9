package patch

import "testing"

func TestChangeStatsAndDiff(t *testing.T) {
	tests := []struct {
		name     string
		change   Change
		add, del int
		diff     string
	}{
		{
			name:   "add",
			change: Change{Kind: Add, Path: "n.txt", NewContent: []byte("a\nb\n")},
			add:    2,
			diff:   "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			name:   "add over an existing file",
			change: Change{Kind: Add, Path: "f", OldContent: []byte("a\nb\n"), NewContent: []byte("a\nc\n")},
			add:    1, del: 1,
			diff: "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		},
		{
			name:   "delete",
			change: Change{Kind: Delete, Path: "d", OldContent: []byte("x\ny")},
			del:    2,
			diff:   "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n\\ No newline at end of file\n",
		},
		{
			name:   "update",
			change: Change{Kind: Update, Path: "u", OldContent: []byte("1\n2\n3\n"), NewContent: []byte("1\ntwo\n3\n4\n")},
			add:    2, del: 1,
			diff: "diff --git a/u b/u\n--- a/u\n+++ b/u\n@@ -1,3 +1,4 @@\n 1\n-2\n+two\n 3\n+4\n",
		},
		{
			name:   "pure move",
			change: Change{Kind: Update, Path: "a/x", MovePath: "b/x", OldContent: []byte("same\n"), NewContent: []byte("same\n")},
			diff:   "diff --git a/a/x b/b/x\nrename from a/x\nrename to b/x\n",
		},
		{
			name:   "move with a change",
			change: Change{Kind: Update, Path: "x", MovePath: "y", OldContent: []byte("1\n"), NewContent: []byte("2\n")},
			add:    1, del: 1,
			diff: "diff --git a/x b/y\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-1\n+2\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			add, del := tt.change.Stats()
			if add != tt.add || del != tt.del {
				t.Errorf("Stats = +%d -%d, want +%d -%d", add, del, tt.add, tt.del)
			}
			if got := tt.change.UnifiedDiff(); got != tt.diff {
				t.Errorf("UnifiedDiff:\n%s\nwant:\n%s", got, tt.diff)
			}
		})
	}
}

func TestChangeSetSummary(t *testing.T) {
	cs := ChangeSet{
		{Kind: Delete, Path: "gone.txt"},
		{Kind: Update, Path: "old.txt", MovePath: "new.txt"},
		{Kind: Add, Path: "added.txt"},
		{Kind: Update, Path: "same.txt"},
	}
	want := "Success. Updated the following files:\nA added.txt\nM new.txt\nM same.txt\nD gone.txt\n"
	if got := cs.Summary(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if add, del := (ChangeSet{{Kind: Add, NewContent: []byte("a\n")}, {Kind: Delete, OldContent: []byte("b\nc\n")}}).Stats(); add != 1 || del != 2 {
		t.Fatalf("Stats = +%d -%d", add, del)
	}
}

func TestNoOpUpdateHasNoDiff(t *testing.T) {
	c := Change{Kind: Update, Path: "f", OldContent: []byte("a\n"), NewContent: []byte("a\n")}
	if d := c.UnifiedDiff(); d != "" {
		t.Fatalf("got %q", d)
	}
	if a, d := c.Stats(); a != 0 || d != 0 {
		t.Fatalf("Stats = +%d -%d", a, d)
	}
}

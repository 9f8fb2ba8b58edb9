package patch

import "testing"

func TestParseUnified(t *testing.T) {
	ud := func(ops ...FileOp) *Patch { return &Patch{Format: FormatUnified, Ops: ops} }
	tests := []parseCase{
		{
			name:  "diff -u with timestamps",
			input: "--- f.txt\t2024-01-01 00:00:00 +0000\n+++ f.txt\t2024-01-01 00:00:01 +0000\n@@ -2,3 +2,3 @@ section\n a\n-b\n+c\n d\n",
			want: ud(FileOp{Kind: Update, Path: "f.txt", Chunks: []Chunk{
				{Old: []string{"a", "b", "d"}, New: []string{"a", "c", "d"}, Line: 2},
			}}),
		},
		{
			name:  "plain diff with two names patches one of them",
			input: "--- main.c.orig\n+++ main.c\n@@ -1 +1 @@\n-x\n+y\n",
			want: ud(FileOp{Kind: Update, Path: "main.c", alt: "main.c.orig", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"y"}, Line: 1},
			}}),
		},
		{
			name:  "a/ b/ prefixes without a git header",
			input: "--- a/dir/f.txt\n+++ b/dir/f.txt\n@@ -1 +1 @@\n-x\n+y\n",
			want: ud(FileOp{Kind: Update, Path: "dir/f.txt", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"y"}, Line: 1},
			}}),
		},
		{
			name:  "leading prose is ignored",
			input: "Here is the change:\n\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n",
			want: ud(FileOp{Kind: Update, Path: "f", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"y"}, Line: 1},
			}}),
		},
		{
			name:  "pure insertion line is the line it goes before",
			input: "--- a/f\n+++ b/f\n@@ -5,0 +6,2 @@\n+n1\n+n2\n",
			want: ud(FileOp{Kind: Update, Path: "f", Chunks: []Chunk{
				{New: []string{"n1", "n2"}, Line: 6},
			}}),
		},
		{
			name: "git new, deleted, renamed and empty files",
			input: "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+1\n+2\n" +
				"diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n" +
				"diff --git a/x/a.go b/y/b.go\nsimilarity index 100%\nrename from x/a.go\nrename to y/b.go\n" +
				"diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n",
			want: ud(
				FileOp{Kind: Add, Path: "new.txt", Content: "1\n2\n"},
				FileOp{Kind: Delete, Path: "old.txt"},
				FileOp{Kind: Update, Path: "x/a.go", MovePath: "y/b.go"},
				FileOp{Kind: Add, Path: "empty"},
			),
		},
		{
			name:  "new file without final newline",
			input: "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+1\n+2\n\\ No newline at end of file\n",
			want:  ud(FileOp{Kind: Add, Path: "n", Content: "1\n2"}),
		},
		{
			name:  "no newline marker anchors at the end",
			input: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n",
			want: ud(FileOp{Kind: Update, Path: "f", Chunks: []Chunk{
				{Old: []string{"a", "b"}, New: []string{"a", "c"}, Line: 1, EndOfFile: true},
			}}),
		},
		{
			name:  "mode change only is skipped",
			input: "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n",
			want: ud(FileOp{Kind: Update, Path: "f", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"y"}, Line: 1},
			}}),
		},
		{
			name:  "binary",
			input: "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
			err:   "invalid patch: binary diffs are not supported (i.png)",
		},
		{
			name:  "copy",
			input: "diff --git a/a b/b\nsimilarity index 100%\ncopy from a\ncopy to b\n",
			err:   "invalid patch: copied files are not supported (b)",
		},
		{
			name:  "bare @@",
			input: "--- a/f\n+++ b/f\n@@\n-x\n+y\n",
			err:   "invalid patch: line 3: '@@' is not a valid unified diff hunk header; expected '@@ -<line>,<count> +<line>,<count> @@'",
		},
		{
			name:  "a last line of spaces is a hunk line",
			input: "\n--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n x\n+  \n\n",
			want: ud(FileOp{Kind: Update, Path: "f", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"x", "  "}, Line: 1},
			}}),
		},
		{
			name:  "heredoc-wrapped diff",
			input: "<<'EOF'\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\nEOF\n",
			want: ud(FileOp{Kind: Update, Path: "f", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"y"}, Line: 1},
			}}),
		},
	}
	runParseCases(t, tests)
}

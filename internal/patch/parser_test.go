package patch

import (
	"reflect"
	"strings"
	"testing"
)

// public returns p without the chunks' internal bookkeeping, so tests can
// spell out the expected patch.
func public(p *Patch) *Patch {
	if p == nil {
		return nil
	}
	out := &Patch{Format: p.Format}
	for _, op := range p.Ops {
		op.Chunks = append([]Chunk(nil), op.Chunks...)
		for i := range op.Chunks {
			op.Chunks[i].ctx, op.Chunks[i].eofNewline = nil, 0
		}
		out.Ops = append(out.Ops, op)
	}
	return out
}

func TestParseApplyPatch(t *testing.T) {
	wrap := func(body string) string { return "*** Begin Patch\n" + body + "\n*** End Patch" }
	ap := func(ops ...FileOp) *Patch { return &Patch{Format: FormatApplyPatch, Ops: ops} }
	tests := []parseCase{
		{
			name: "all operations",
			input: wrap("*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n" +
				"*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123"),
			want: ap(
				FileOp{Kind: Add, Path: "path/add.py", Content: "abc\ndef\n"},
				FileOp{Kind: Delete, Path: "path/delete.py"},
				FileOp{Kind: Update, Path: "path/update.py", MovePath: "path/update2.py", Chunks: []Chunk{
					{Scopes: []string{"def f():"}, Old: []string{"    pass"}, New: []string{"    return 123"}},
				}},
			),
		},
		{
			name:  "no file operations parses",
			input: "*** Begin Patch\n*** End Patch",
			want:  ap(),
		},
		{name: "empty", input: "  \n ", err: "invalid patch: The last line of the patch must be '*** End Patch'"},
		{name: "bad first line", input: "bad", err: "invalid patch: The first line of the patch must be '*** Begin Patch'"},
		{name: "bad last line", input: "*** Begin Patch\nbad", err: "invalid patch: The last line of the patch must be '*** End Patch'"},
		{name: "begin only", input: "*** Begin Patch", err: "invalid patch: The last line of the patch must be '*** End Patch'"},
		{
			name:  "padded markers and headers",
			input: "\n  *** Begin Patch \n   *** Add File: foo  \n+hi\n *** End Patch\t\n\n",
			want:  ap(FileOp{Kind: Add, Path: "foo", Content: "hi\n"}),
		},
		{
			name:  "empty update",
			input: wrap("*** Update File: test.py"),
			err:   "invalid hunk at line 2, Update file hunk for path 'test.py' is empty",
		},
		{
			name:  "unknown header",
			input: wrap("*** Frobnicate File: foo"),
			err:   "invalid hunk at line 2, '*** Frobnicate File: foo' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
		},
		{
			name:  "first chunk may omit @@",
			input: wrap("*** Update File: file2.py\n import foo\n+bar"),
			want: ap(FileOp{Kind: Update, Path: "file2.py", Chunks: []Chunk{
				{Old: []string{"import foo"}, New: []string{"import foo", "bar"}},
			}}),
		},
		{
			name:  "later chunks need @@",
			input: wrap("*** Update File: f\n@@\n-a\n+b\n*** End of File\n-c"),
			err:   "invalid hunk at line 7, Expected update hunk to start with a @@ context marker, got: '-c'",
		},
		{
			name:  "update followed by add",
			input: wrap("*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content"),
			want: ap(
				FileOp{Kind: Update, Path: "file.py", Chunks: []Chunk{{New: []string{"line"}}}},
				FileOp{Kind: Add, Path: "other.py", Content: "content\n"},
			),
		},
		{
			name:  "stacked scopes and several chunks",
			input: wrap("*** Update File: a.py\n@@ class A:\n@@     def f(self):\n-        return 1\n+        return 2\n\n@@\n@@ def g():\n-    pass\n+    return 3"),
			want: ap(FileOp{Kind: Update, Path: "a.py", Chunks: []Chunk{
				// As in Codex, the blank line before "@@" is an empty
				// context line of the first chunk.
				{Scopes: []string{"class A:", "    def f(self):"}, Old: []string{"        return 1", ""}, New: []string{"        return 2", ""}},
				{Scopes: []string{"def g():"}, Old: []string{"    pass"}, New: []string{"    return 3"}},
			}}),
		},
		{
			name:  "blank scope and unified-style header are bare @@",
			input: wrap("*** Update File: a\n@@   \n-x\n+y\n@@ -10,3 +10,4 @@ func f() {\n-z\n+w"),
			want: ap(FileOp{Kind: Update, Path: "a", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"y"}},
				{Old: []string{"z"}, New: []string{"w"}},
			}}),
		},
		{
			name:  "empty line is empty context",
			input: wrap("*** Update File: a\n@@\n a\n\n-b\n+c"),
			want: ap(FileOp{Kind: Update, Path: "a", Chunks: []Chunk{
				{Old: []string{"a", "", "b"}, New: []string{"a", "", "c"}},
			}}),
		},
		{
			name:  "end of file marker",
			input: wrap("*** Update File: a\n@@\n x\n-y\n*** End of File"),
			want: ap(FileOp{Kind: Update, Path: "a", Chunks: []Chunk{
				{Old: []string{"x", "y"}, New: []string{"x"}, EndOfFile: true},
			}}),
		},
		{
			name:  "end of file marker alone",
			input: wrap("*** Update File: a\n@@\n*** End of File"),
			err:   "invalid hunk at line 4, Update hunk does not contain any lines",
		},
		{
			name:  "@@ with nothing after it",
			input: wrap("*** Update File: a\n@@\n-x\n@@"),
			err:   "invalid hunk at line 6, Update hunk does not contain any lines",
		},
		{
			name:  "bad first chunk line",
			input: wrap("*** Update File: a\n@@\n#x"),
			err:   "invalid hunk at line 4, Unexpected line found in update hunk: '#x'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
		},
		{
			name:  "blank lines between operations",
			input: wrap("*** Add File: a\n+1\n\n*** Delete File: b\n\n*** Delete File: c"),
			want: ap(
				FileOp{Kind: Add, Path: "a", Content: "1\n"},
				FileOp{Kind: Delete, Path: "b"},
				FileOp{Kind: Delete, Path: "c"},
			),
		},
		{
			name:  "padded move line",
			input: wrap("*** Update File: a\n  *** Move to: b  \n@@\n-x\n+y"),
			want: ap(FileOp{Kind: Update, Path: "a", MovePath: "b", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"y"}},
			}}),
		},
		{
			name:  "CRLF patch text",
			input: "*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n",
			want: ap(FileOp{Kind: Update, Path: "a", Chunks: []Chunk{
				{Old: []string{"x"}, New: []string{"y"}},
			}}),
		},
		{
			name:  "empty add",
			input: wrap("*** Add File: empty.txt"),
			want:  ap(FileOp{Kind: Add, Path: "empty.txt"}),
		},
		{
			name:  "absolute paths are kept as written",
			input: wrap("*** Delete File: /tmp/x\n*** Add File: ../y\n+1"),
			want:  ap(FileOp{Kind: Delete, Path: "/tmp/x"}, FileOp{Kind: Add, Path: "../y", Content: "1\n"}),
		},
	}
	for _, heredoc := range []struct{ open, close string }{
		{"<<EOF", "EOF"},
		{"<<'EOF'", "EOF"},
		{`<<"EOF"`, "EOF"},
		{"apply_patch <<'PATCH'", "PATCH"},
		{`apply_patch <<"EOF"`, "EOF\n"},
	} {
		tests = append(tests, parseCase{
			name:  "heredoc " + heredoc.open,
			input: heredoc.open + "\n" + wrap("*** Delete File: x") + "\n" + heredoc.close,
			want:  ap(FileOp{Kind: Delete, Path: "x"}),
		})
	}
	tests = append(tests, parseCase{
		name:  "mismatched heredoc quotes are not a wrapper",
		input: "<<'EOF\"\n" + wrap("*** Delete File: x") + "\nEOF",
		err:   "invalid patch: The first line of the patch must be '*** Begin Patch'",
	})

	runParseCases(t, tests)
}

// parseCase is a patch text and what Parse must make of it.
type parseCase struct {
	name  string
	input string
	want  *Patch
	err   string // the exact error, if Parse must fail
}

func runParseCases(t *testing.T, tests []parseCase) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.input)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(public(got), tt.want) {
				t.Fatalf("got  %+v\nwant %+v", public(got), tt.want)
			}
		})
	}
}

func TestParseErrorsAreTyped(t *testing.T) {
	_, err := Parse("nonsense")
	var pe *ParseError
	if !asParseError(err, &pe) || pe.Line != 0 {
		t.Fatalf("got %T %v", err, err)
	}
	_, err = Parse("*** Begin Patch\n*** Nope\n*** End Patch")
	if !asParseError(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Message, "'*** Nope'") {
		t.Fatalf("got %T %v", err, err)
	}
}

func asParseError(err error, pe **ParseError) bool {
	p, ok := err.(*ParseError)
	*pe = p
	return ok
}

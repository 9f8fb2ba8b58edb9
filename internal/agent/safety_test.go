package agent

import "testing"

func TestKnownSafe(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		safe bool
	}{
		{[]string{"ls", "-la"}, true},
		{[]string{"cat", "go.mod"}, true},
		{[]string{"git", "status"}, true},
		{[]string{"git", "log", "--oneline", "-5"}, true},
		{[]string{"git", "diff", "--ext-diff"}, false},
		{[]string{"git", "-c", "core.pager=evil", "log"}, false},
		{[]string{"git", "branch", "--show-current"}, true},
		{[]string{"git", "branch", "-D", "x"}, false},
		{[]string{"git", "commit", "-m", "x"}, false},
		{[]string{"find", ".", "-name", "*.go"}, true},
		{[]string{"find", ".", "-delete"}, false},
		{[]string{"find", ".", "-exec", "rm", "{}", ";"}, false},
		{[]string{"rg", "TODO"}, true},
		{[]string{"rg", "--pre", "sh", "x"}, false},
		{[]string{"sed", "-n", "1,20p", "f.go"}, true},
		{[]string{"sed", "-i", "s/a/b/", "f.go"}, false},
		{[]string{"base64", "-o", "out", "f"}, false},
		{[]string{"go", "test", "./..."}, false},
		{[]string{"bash", "-lc", "ls && git status | head -5; wc -l go.mod"}, true},
		{[]string{"bash", "-lc", "ls > out.txt"}, false},
		{[]string{"bash", "-lc", "ls $(rm -rf /)"}, false},
		{[]string{"bash", "-lc", "FOO=1 ls"}, false},
		{[]string{"bash", "-lc", "ls & rm x"}, false},
		{[]string{"bash", "-lc", "cat 'a b' \"c\""}, true},
		{[]string{"bash", "-lc", "echo \"$HOME\""}, false},
		{[]string{"bash", "-lc", "ls; python3 -c 1"}, false},
		{[]string{"/bin/ls"}, true},
		{[]string{}, false},
	} {
		if got := knownSafe(tc.argv); got != tc.safe {
			t.Errorf("knownSafe(%q) = %v, want %v", tc.argv, got, tc.safe)
		}
	}
}

func TestDangerous(t *testing.T) {
	for _, tc := range []struct {
		argv      []string
		dangerous bool
	}{
		{[]string{"rm", "-rf", "build"}, true},
		{[]string{"rm", "-f", "x"}, true},
		{[]string{"rm", "--", "-rf"}, false},
		{[]string{"rm", "x"}, false},
		{[]string{"git", "push", "--force"}, true},
		{[]string{"git", "push", "origin", "+main"}, true},
		{[]string{"git", "push", "--force-with-lease"}, true},
		{[]string{"git", "push", "origin", "main"}, false},
		{[]string{"git", "reset", "--hard", "HEAD~1"}, true},
		{[]string{"git", "reset", "HEAD~1"}, false},
		{[]string{"git", "-C", "sub", "clean", "-fdx"}, true},
		{[]string{"git", "checkout", "--", "."}, true},
		{[]string{"git", "checkout", "-b", "feature"}, false},
		{[]string{"git", "restore", "--staged", "x"}, false},
		{[]string{"git", "restore", "x"}, true},
		{[]string{"git", "stash", "drop"}, true},
		{[]string{"sudo", "ls"}, true},
		{[]string{"bash", "-lc", "make && rm -rf /"}, true},
		{[]string{"bash", "-lc", "cd x && git push -f origin main"}, true},
		// Unparseable: checked word by word.
		{[]string{"bash", "-lc", "for f in *; do rm -rf \"$f\"; done"}, true},
		{[]string{"bash", "-lc", "echo $(( 1 + 2 ))"}, false},
		{[]string{"go", "test", "./..."}, false},
	} {
		if _, got := dangerous(tc.argv); got != tc.dangerous {
			t.Errorf("dangerous(%q) = %v, want %v", tc.argv, got, tc.dangerous)
		}
	}
}

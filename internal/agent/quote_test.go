package agent

import "testing"

func TestQuoteCommand(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"ls", "-la"}, "ls -la"},
		{[]string{"bash", "-lc", "echo 'hi' && ls", "a\nb", ""}, `bash -lc "echo 'hi' && ls" $'a\nb' ''`},
		{[]string{"sh", "-c", "rm -rf ~ \r\x1b[2K? run ls -la"}, `sh -c $'rm -rf ~ \r\x1b[2K? run ls -la'`},
		{[]string{"printf", "\x1b]52;c;aGk=\a"}, `printf $'\x1b]52;c;aGk=\a'`},
		{[]string{"cat", "a\u202eb", "\u200bx", "\u2066y\u2069", "\u009bz"}, `cat $'a\u202eb' $'\u200bx' $'\u2066y\u2069' $'\u009bz'`},
		{[]string{"echo", "\xff"}, `echo $'\xff'`},
		{[]string{"echo", "a\x00b"}, `echo "a\x00b"`},
		{[]string{"echo", "a\x00\u202eb"}, `echo "a\x00\u202eb"`},
	} {
		if got := QuoteCommand(tc.argv); got != tc.want {
			t.Errorf("QuoteCommand(%q) = %s, want %s", tc.argv, got, tc.want)
		}
	}
}

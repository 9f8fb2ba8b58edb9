package agent

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// QuoteCommand renders argv as a shell would need it typed, one shell word
// per argument (bash quoting), for a person to approve: a newline, an
// escape sequence or a bidi control shows as $'\n', $'\x1b', $'\u202e'
// rather than acting on the screen, so what the user reads is what runs.
// Every front end that shows a command to approve uses it.
func QuoteCommand(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil { // a NUL byte: no shell can carry it
			q = strconv.Quote(a)
		}
		parts[i] = q
	}
	return strings.Join(parts, " ")
}

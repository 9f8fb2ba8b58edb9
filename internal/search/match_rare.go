package search

import (
	"bytes"
)

// byteFreq is how many of 100,000 bytes of source code are each byte,
// counted over Go's and Linux's sources (the mean of the two); bytes not
// listed (control bytes, UTF-8's) are rarer than all of them.
var byteFreq = [256]uint16{
	'\t': 3542, '\n': 2978, ' ': 15517, '!': 82, '"': 669, '#': 217, '$': 33,
	'%': 62, '&': 152, '\'': 71, '(': 1002, ')': 1002, '*': 501, '+': 100,
	',': 1729, '-': 436, '.': 856, '/': 749, '0': 2544, '1': 1095, '2': 891,
	'3': 537, '4': 538, '5': 335, '6': 470, '7': 256, '8': 434, '9': 259,
	':': 596, ';': 519, '<': 128, '=': 746, '>': 274, '?': 9, '@': 18,
	'A': 1015, 'B': 396, 'C': 912, 'D': 744, 'E': 1090, 'F': 556, 'G': 336,
	'H': 271, 'I': 875, 'J': 16, 'K': 168, 'L': 650, 'M': 723, 'N': 644,
	'O': 705, 'P': 728, 'Q': 95, 'R': 962, 'S': 1012, 'T': 1017, 'U': 378,
	'V': 344, 'W': 155, 'X': 495, 'Y': 121, 'Z': 52, '[': 192, '\\': 166,
	']': 192, '^': 7, '_': 3191, '`': 24, 'a': 2618, 'b': 704, 'c': 1855,
	'd': 1796, 'e': 4815, 'f': 1440, 'g': 847, 'h': 829, 'i': 2788, 'j': 45,
	'k': 431, 'l': 1655, 'm': 1113, 'n': 2809, 'o': 2260, 'p': 1292, 'q': 117,
	'r': 3000, 's': 2613, 't': 3738, 'u': 1462, 'v': 672, 'w': 344, 'x': 1345,
	'y': 503, 'z': 90, '{': 498, '|': 93, '}': 497, '~': 6,
}

// pairScan is what scanning for a letter's two cases costs beyond their
// occurrences (indexFoldLetter scans each window for both), in byteFreq's
// units.
const pairScan = 100

// rarestByte returns the offset in lit of its rarest byte: scanning for
// it (a vectorised IndexByte) stops at the fewest false candidates, as
// ripgrep's and memchr's prefilters do. bytes.Index scans for the first
// byte, often an 's' or an 'e'.
func rarestByte(lit []byte) int {
	best := 0
	for i, c := range lit {
		if byteFreq[c] < byteFreq[lit[best]] {
			best = i
		}
	}
	return best
}

// indexRare is bytes.Index(data, lit), scanning for lit's byte at
// offset k (its rarest) and checking the whole literal around each one.
func indexRare(data, lit []byte, k int) int {
	c := lit[k]
	for off := 0; off+len(lit) <= len(data); {
		i := bytes.IndexByte(data[off+k:], c)
		if i < 0 {
			return -1
		}
		at := off + i
		if at+len(lit) > len(data) {
			return -1
		}
		if string(data[at:at+len(lit)]) == string(lit) {
			return at
		}
		off = at + 1
	}
	return -1
}

// rarestFoldByte returns the offset in lit (lower case) of the byte to
// scan for when ASCII case is ignored: the byte whose occurrences, both
// cases of a letter counted, are the fewest.
func rarestFoldByte(lit []byte) int {
	best, bestCost := 0, -1
	for i, c := range lit {
		if cost := foldCost(c); bestCost < 0 || cost < bestCost {
			best, bestCost = i, cost
		}
	}
	return best
}

// foldCost estimates the candidates that scanning for c, ignoring ASCII
// case, stops at (c is lower case).
func foldCost(c byte) int {
	if 'a' <= c && c <= 'z' {
		return int(byteFreq[c]) + int(byteFreq[c-'a'+'A']) + pairScan
	}
	return int(byteFreq[c])
}

// literalCost estimates the candidates a literal's prefilter stops at:
// the frequency of the byte it scans for. A literal folded beyond ASCII
// has no byte scan: it costs more than any.
func literalCost(lit []rune, fold bool) int {
	s := []byte(string(lit))
	if len(s) == 0 {
		return 1 << 30
	}
	if !fold {
		return int(byteFreq[s[rarestByte(s)]])
	}
	if !isASCII(string(s)) {
		return 1 << 29
	}
	s = bytes.ToLower(s)
	return foldCost(s[rarestFoldByte(s)])
}

package search

import (
	"bytes"
	"strings"
)

// commonBytes are the bytes of source code and prose from the most
// frequent down (counted over Go's and Linux's sources and docs); bytes
// not listed are rarer than all of them.
const commonBytes = " etrnia\ts\nocldufp_,0h()m.g=x/by-\"TSEkv1w{}*I:CA2PR;N4O6L3DFM85B>U[]G9H"

// byteRank is how common a byte is: higher is rarer.
var byteRank = func() (r [256]int) {
	for i := range r {
		r[i] = len(commonBytes)
	}
	for i := range len(commonBytes) {
		r[commonBytes[i]] = i
	}
	return r
}()

// rarestByte returns the offset in lit of its rarest byte: scanning for
// it (a vectorised IndexByte) stops at the fewest false candidates, as
// ripgrep's and memchr's prefilters do. bytes.Index scans for the first
// byte, often an 's' or an 'e'.
func rarestByte(lit []byte) int {
	best := 0
	for i, c := range lit {
		if byteRank[c] > byteRank[lit[best]] {
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
// scan for when ASCII case is ignored: the rarest byte without case, or
// -1 when every byte is a letter (both cases are then scanned for).
func rarestFoldByte(lit []byte) int {
	best := -1
	for i, c := range lit {
		if 'a' <= c && c <= 'z' {
			continue
		}
		if best < 0 || byteRank[c] > byteRank[lit[best]] {
			best = i
		}
	}
	if best >= 0 && strings.IndexByte(commonBytes[:12], lit[best]) >= 0 {
		// A space or a tab: as common as any letter pair.
		return -1
	}
	return best
}

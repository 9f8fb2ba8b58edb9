package session

import "bytes"

// The kept events' JSON are read into one arena, sized by the first
// pass, one after the other and separated by commas, with room before
// and after them: the answer to agent/resumeSession, which carries them
// all as a JSON array, is then built around them where they lie rather
// than copied (a long session's are megabytes, and a fresh process pays
// for each page it touches first).
const (
	answerRoom = 1 << 10 // before the first
	answerTail = 16      // after the last
)

// keep copies an event's JSON, which is the reader's buffer, to the
// arena, or, past its end, alone.
func (r *reader) keep(b []byte) []byte {
	a := r.ld.arena
	sep := 0
	if len(a) > answerRoom {
		sep = 1
	}
	if len(a)+sep+len(b) > cap(a)-answerTail {
		return bytes.Clone(b)
	}
	if sep > 0 {
		a = append(a, ',')
	}
	start := len(a)
	a = append(a, b...)
	r.ld.arena = a
	return a[start:len(a):len(a)]
}

// ItemsArray returns head, the JSON of the Items joined by commas, and
// tail, as one slice: an answer that carries the items as a JSON array
// (head ending in "[", tail starting with "]"). When the items lie in
// the arena as they were read, in order, and head and tail fit the room
// around them, the slice is built there and the items are not copied;
// the slice then stays valid until ItemsArray is called again.
func (ld *Loaded) ItemsArray(head, tail []byte) []byte {
	a := ld.arena
	if len(ld.Items) > 0 && len(head) <= answerRoom && len(a)+len(tail) <= cap(a) && ld.inArena() {
		start := answerRoom - len(head)
		copy(a[start:], head)
		return append(a, tail...)[start:]
	}
	size := len(head) + len(tail)
	for _, it := range ld.Items {
		size += len(it.JSON) + 1
	}
	out := append(make([]byte, 0, size), head...)
	for i, it := range ld.Items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it.JSON...)
	}
	return append(out, tail...)
}

// inArena reports whether the items are the whole arena, in order.
func (ld *Loaded) inArena() bool {
	a, at := ld.arena, answerRoom
	for _, it := range ld.Items {
		if at > answerRoom {
			if at >= len(a) || a[at] != ',' {
				return false
			}
			at++
		}
		if len(it.JSON) == 0 || at >= len(a) || &a[at] != &it.JSON[0] {
			return false
		}
		at += len(it.JSON)
	}
	return at == len(a)
}

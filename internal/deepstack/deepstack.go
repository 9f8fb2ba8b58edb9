// Package deepstack gives a goroutine, once, the stack that the deep code
// it is about to run will need.
//
// A goroutine starts with a 2 KiB stack. Each time its calls go deeper
// than the stack it has, the runtime moves the whole stack to one twice
// the size, walking and adjusting every frame on it. Code that nests
// deeply (reflective JSON, net/http, the ACP SDK's handlers, the turn
// loop) grows a new goroutine's stack three or four times over, each time
// copying a deeper stack: about thirty copies in the first second of
// `agent-ls acp`, 0.5 ms of CPU and 0.2–0.4 ms of the time to the first
// answer. Reserve does it once, while the stack is still shallow: one
// copy of a few frames.
package deepstack

// Size is the stack Reserve leaves a goroutine with, at least: the
// deepest stack that start-up and a first turn were seen to grow to.
const Size = 32 << 10

// zero is an index the compiler cannot see through, so that reserve's
// frame is really there.
var zero int

// Reserve grows the calling goroutine's stack to Size at once. Call it
// first thing in a goroutine that runs deep code; a goroutine whose
// stack is already that large is left as it is. The stack shrinks back
// at a garbage collection if the goroutine no longer uses it.
func Reserve() { reserve() }

// reserve's frame, with the runtime's guard and its callers' frames,
// takes the stack past half of Size, which the runtime rounds up to Size.
//
//go:noinline
func reserve() byte {
	var frame [Size - 8<<10]byte
	return frame[zero]
}

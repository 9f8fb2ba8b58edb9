package deepstack

import (
	"testing"
	"unsafe"
)

// TestReserveLeavesRoomForDeepCode: a goroutine's stack moves when it
// grows, and with it the address of a local; after Reserve, code 24 KiB
// deep runs without the stack moving.
func TestReserveLeavesRoomForDeepCode(t *testing.T) {
	moved := func(reserve bool) bool {
		res := make(chan bool)
		go func() {
			if reserve {
				Reserve()
			}
			var local byte
			before := uintptr(unsafe.Pointer(&local))
			deep(24)
			res <- uintptr(unsafe.Pointer(&local)) != before
		}()
		return <-res
	}
	if !moved(false) {
		t.Fatal("a new goroutine's stack did not move for deep code: this test cannot see growth")
	}
	if moved(true) {
		t.Fatal("the stack moved after Reserve")
	}
}

func BenchmarkDeepCallOnNewGoroutine(b *testing.B) {
	for _, reserve := range []bool{false, true} {
		name := "grown as it goes"
		if reserve {
			name = "reserved"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				done := make(chan struct{})
				go func() {
					if reserve {
						Reserve()
					}
					deep(24)
					close(done)
				}()
				<-done
			}
		})
	}
}

// deep calls n frames deep, each frame about 1 KiB, as deep code does.
//
//go:noinline
func deep(n int) byte {
	var pad [1 << 10]byte
	pad[zero] = byte(n)
	if n == 0 {
		return pad[zero]
	}
	return deep(n-1) + pad[zero]
}

func TestReserveIsCalledSafely(t *testing.T) {
	done := make(chan struct{})
	for range 8 {
		go func() {
			Reserve()
			Reserve()
			deep(24)
			done <- struct{}{}
		}()
	}
	for range 8 {
		<-done
	}
}

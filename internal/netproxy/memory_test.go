package netproxy

import (
	"io"
	"net"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// TestStreamsWithBoundedMemory moves 256 MiB through a CONNECT tunnel
// and checks that the heap stays small: the proxy never holds more than
// its copy buffers.
func TestStreamsWithBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 256 MiB")
	}
	const size = 256 << 20
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 64<<10)
		for sent := 0; sent < size; sent += len(buf) {
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}()
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	f := newFixture(t, Rules{}, allowOnce)

	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()

	c, err := net.Dial("tcp", f.url.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	target := "127.0.0.1:" + p
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	head := make([]byte, len("HTTP/1.1 200 Connection established\r\n\r\n"))
	if _, err := io.ReadFull(c, head); err != nil || string(head[:12]) != "HTTP/1.1 200" {
		t.Fatalf("CONNECT: %q %v", head, err)
	}
	n, err := io.Copy(io.Discard, c)
	close(stop)
	<-sampled
	if err != nil || n != size {
		t.Fatalf("received %d bytes, %v; want %d", n, err, size)
	}
	c.Close()
	a := <-f.accesses
	if a.Bytes < size {
		t.Errorf("accounted %d bytes, want at least %d", a.Bytes, size)
	}
	if peak.Load() > 32<<20 {
		t.Errorf("heap in use peaked at %s bytes while streaming, want under 32 MiB", strconv.FormatUint(peak.Load(), 10))
	}
	t.Logf("peak heap in use %d KiB", peak.Load()>>10)
}

package netproxy

import (
	"context"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchOrigin serves size bytes to every connection, from one buffer.
func benchOrigin(b *testing.B, size int64) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	buf := make([]byte, 256<<10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for sent := int64(0); sent < size; sent += int64(len(buf)) {
					if _, err := c.Write(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// benchProxy serves a proxy that allows everything on loopback.
func benchProxy(b *testing.B) string {
	b.Helper()
	p := New(Config{Decider: DeciderFunc(func(context.Context, Question) Answer { return Answer{Allow: true, Remember: true} })})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Serve(ctx, ln, Client{}) }()
	b.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

func download(b *testing.B, proxy, target string, want int64) {
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		b.Error(err)
		return
	}
	defer c.Close()
	io.WriteString(c, "CONNECT "+target+" HTTP/1.1\r\nHost: "+target+"\r\n\r\n")
	head := make([]byte, len("HTTP/1.1 200 Connection established\r\n\r\n"))
	if _, err := io.ReadFull(c, head); err != nil {
		b.Error(err)
		return
	}
	if n, err := io.Copy(io.Discard, c); err != nil || n < want {
		b.Errorf("got %d bytes, %v", n, err)
	}
}

// peakHeap samples the heap in use until stop is called.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-quit:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(quit); <-done; return peak.Load() }
}

// BenchmarkTunnel1GiB: one download of 1 GiB through a CONNECT tunnel.
func BenchmarkTunnel1GiB(b *testing.B) {
	const size = 1 << 30
	target, proxy := benchOrigin(b, size), benchProxy(b)
	b.SetBytes(size)
	stop := peakHeap()
	for b.Loop() {
		download(b, proxy, target, size)
	}
	b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
}

// BenchmarkTunnel100Connections: 100 connections at once, 16 MiB each.
func BenchmarkTunnel100Connections(b *testing.B) {
	const size, conns = 16 << 20, 100
	target, proxy := benchOrigin(b, size), benchProxy(b)
	b.SetBytes(size * conns)
	stop := peakHeap()
	for b.Loop() {
		var wg sync.WaitGroup
		for range conns {
			wg.Add(1)
			go func() { defer wg.Done(); download(b, proxy, target, size) }()
		}
		wg.Wait()
	}
	b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
}

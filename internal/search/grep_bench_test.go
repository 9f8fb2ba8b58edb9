package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// noDocs is an editor with nothing open.
type noDocs struct{}

func (noDocs) OpenPaths() []string            { return nil }
func (noDocs) Document(string) (string, bool) { return "", false }

// grepDir searches the tree at root for q as grep_files does: lines cut
// at 500 bytes, files over 8 MiB skipped.
func grepDir(ctx context.Context, root string, q Query) (*Result, error) {
	q.MaxLineBytes, q.MaxFileSize = 500, 8<<20
	g, err := NewGrep(q, noDocs{})
	if err != nil {
		return nil, err
	}
	if err := g.Tree(ctx, root, root); err != nil {
		return nil, err
	}
	return g.Result(), nil
}

// BenchmarkGrepGoroot searches the Go source tree, the cases
// bench/grep.sh compares with ripgrep.
func BenchmarkGrepGoroot(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	for _, q := range []Query{
		{Pattern: `func NewReader`, CaseSensitive: true, Limit: 100},
		{Pattern: `func \(\w+ \*\w+\) Read[A-Z]\w*\(`, CaseSensitive: true, Limit: 100},
		{Pattern: `[A-Z][a-z]+[0-9]{2,}[A-Z]\w*`, CaseSensitive: true, Limit: 100},
		{Pattern: `todo|fixme|xxx`, CaseSensitive: false, Limit: 100},
	} {
		b.Run(q.Pattern, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := grepDir(b.Context(), root, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGrep100kFiles greps a generated tree of 100,000 small files
// (1,000 directories of 100), every one of them matching, and reports
// the peak of the heap in use (sampled every millisecond) and of the
// process's resident memory. It fails when the heap peak passes 50 MB.
func BenchmarkGrep100kFiles(b *testing.B) {
	if testing.Short() {
		b.Skip("generates 100,000 files")
	}
	root := b.TempDir()
	start := time.Now()
	writeTree(b, root, 1000, 100)
	b.Logf("generated 100,000 files in %v", time.Since(start).Round(time.Millisecond))

	for _, q := range []Query{
		{Pattern: `func Handle`, CaseSensitive: true, Limit: 100},
		{Pattern: `[A-Z][a-z]+[0-9]{2,}[A-Z]\w*`, CaseSensitive: true, Limit: 2000},
		{Pattern: `handle`, CaseSensitive: false, Limit: 2000, FilesOnly: true},
	} {
		b.Run(q.Pattern, func(b *testing.B) {
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			peak := sampleHeap()
			var res *Result
			for b.Loop() {
				var err error
				if res, err = grepDir(b.Context(), root, q); err != nil {
					b.Fatal(err)
				}
			}
			heap := peak()
			if res.MatchFiles != 100_000 {
				b.Fatalf("%d files matched, want 100000", res.MatchFiles)
			}
			b.ReportMetric(float64(heap)/1e6, "peak-heap-MB")
			b.ReportMetric(float64(before.HeapInuse)/1e6, "heap-before-MB")
			if rss := vmHWM(); rss > 0 {
				b.ReportMetric(float64(rss)/1e6, "VmHWM-MB")
			}
			b.ReportMetric(float64(res.peakFiles), "peak-files-held")
			if heap > 50<<20 {
				b.Errorf("heap peaked at %d MB", heap>>20)
			}
		})
	}
}

// writeTree writes dirs×files small Go-like files below root.
func writeTree(tb testing.TB, root string, dirs, files int) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for d := range dirs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			dir := filepath.Join(root, fmt.Sprintf("pkg%04d", d))
			if err := os.Mkdir(dir, 0o755); err != nil {
				tb.Error(err)
				return
			}
			var buf bytes.Buffer
			for f := range files {
				buf.Reset()
				fmt.Fprintf(&buf, "package pkg%04d\n\n// Value%dX is file %d.\nconst Value%dX = %d\n\nfunc Handle%d() {}\n", d, f+10, f, f+10, f, f)
				if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(f)+".go"), buf.Bytes(), 0o644); err != nil {
					tb.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if tb.Failed() {
		tb.FailNow()
	}
}

// sampleHeap samples HeapInuse every millisecond until the returned
// function is called, which returns the largest value seen.
func sampleHeap() func() uint64 {
	done := make(chan struct{})
	result := make(chan uint64)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				result <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-result
	}
}

// vmHWM is the process's peak resident set size, or 0 where
// /proc/self/status is missing.
func vmHWM() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb << 10
		}
	}
	return 0
}

package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestMain removes the benchmarks' tree after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if root, err := mentionTree.made(); err == nil && root != "" {
		os.RemoveAll(root)
	}
	os.Exit(code)
}

// treeOnce makes a tree once and remembers whether it did.
type treeOnce struct {
	once sync.Once
	root string
	err  error
	make func() (string, error)
}

// get makes the tree the first time.
func (t *treeOnce) get() (string, error) {
	t.once.Do(func() { t.root, t.err = t.make() })
	return t.root, t.err
}

// made is the tree this run made ("" when none, or a tree it was given).
func (t *treeOnce) made() (string, error) {
	if os.Getenv("AGENT_LS_MENTION_TREE") != "" {
		return "", nil
	}
	ran := true
	t.once.Do(func() { ran = false })
	if !ran {
		return "", nil
	}
	return t.root, t.err
}

// mentionTree is a tree of 100,000 files in 5,000 folders three levels
// deep, the shape of a kernel checkout, made once per run; or, when
// AGENT_LS_MENTION_TREE names one, a real tree (a kernel checkout).
var mentionTree = &treeOnce{make: func() (string, error) {
	if d := os.Getenv("AGENT_LS_MENTION_TREE"); d != "" {
		return d, nil
	}
	root, err := os.MkdirTemp("", "agent-ls-mentions-")
	if err != nil {
		return "", err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	sem := make(chan struct{}, 8)
	for a := range 20 {
		for b := range 250 {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				dir := filepath.Join(root, fmt.Sprintf("subsys%02d", a), fmt.Sprintf("driver_%03d", b))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
				for f := range 20 {
					if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file_%02d_core.c", f)), nil, 0o644); err != nil {
						select {
						case errs <- err:
						default:
						}
						return
					}
				}
			})
		}
	}
	wg.Wait()
	select {
	case err := <-errs:
		return "", err
	default:
	}
	return root, nil
}}

// BenchmarkMentionFirst is the first @-mention of a session as
// agent/completeMention answers it: FindSoon, which waits at most 60 ms
// for the walk and scores what it has listed by then.
func BenchmarkMentionFirst(b *testing.B) {
	root, err := mentionTree.get()
	if err != nil {
		b.Fatal(err)
	}
	partial := 0
	for b.Loop() {
		x := &FileIndex{}
		got, complete := x.FindSoon(context.Background(), []string{root}, "drv", 20, 60*time.Millisecond)
		if len(got) == 0 {
			b.Fatal("no match")
		}
		if !complete {
			partial++
		}
		b.StopTimer()
		x.Find(context.Background(), []string{root}, "", 1) // the walk ends before the next one starts
		b.StartTimer()
	}
	b.ReportMetric(float64(partial)/float64(b.N), "partial/op")
}

// BenchmarkMentionWalk is the whole first walk of the tree and an answer
// from all of it.
func BenchmarkMentionWalk(b *testing.B) {
	root, err := mentionTree.get()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		x := &FileIndex{}
		if got := x.Find(context.Background(), []string{root}, "drv42core", 20); len(got) == 0 {
			b.Fatal("no match")
		}
	}
}

// BenchmarkMentionNext is each later keystroke: the kept list scored
// again.
func BenchmarkMentionNext(b *testing.B) {
	root, err := mentionTree.get()
	if err != nil {
		b.Fatal(err)
	}
	x := &FileIndex{}
	x.Find(context.Background(), []string{root}, "", 1)
	for _, q := range []string{"d", "drv42core", "subsys07/driver_123/file_05"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				x.Find(context.Background(), []string{root}, q, 50)
			}
		})
	}
}

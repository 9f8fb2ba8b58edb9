package search

import (
	"context"
	"runtime"
	"sync"
)

// orderWindow is how far, in files, the searches may run ahead of the
// first file whose result is not in yet: it bounds the hits held
// waiting for their turn.
const orderWindow = 256

// treeOrdered searches the files of a walk in path order, several at a
// time, and adds their hits in that order until the limit is filled;
// then it stops the walk and the searches. What it finds is thus the
// first files of the tree that match, the same whichever search ends
// first. It returns the walk's notes up to where it stopped.
func (g *Grep) treeOrdered(ctx context.Context, opts walkOptions, open map[string]bool, seen *sync.Map) []Note {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		seq int
		f   walkFile
	}
	jobs := make(chan job, 64)
	var notes []Note
	go func() {
		defer close(jobs)
		seq := 0
		notes = walkOrdered(ctx, opts, func(f walkFile) bool {
			if !g.wanted(f.Rel) {
				f.dir.release()
				return true
			}
			select {
			case jobs <- job{seq, f}:
				seq++
				return true
			case <-ctx.Done():
				f.dir.release()
				return false
			}
		})
	}()
	o := &inOrder{g: g, cancel: cancel, done: map[int]orderedResult{}}
	o.cond = sync.NewCond(&o.mu)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 2) {
		wg.Go(func() {
			buf := make([]byte, 0, 256<<10)
			for j := range jobs {
				if !o.wait(j.seq) {
					j.f.dir.release()
					continue // stopped: drain what the walk queued
				}
				if open[j.f.Abs] {
					seen.Store(j.f.Abs, true)
				}
				fh, note := g.searchFile(j.f, open[j.f.Abs], &buf)
				j.f.dir.release()
				o.put(j.seq, orderedResult{rel: j.f.Rel, fh: fh, note: note})
			}
		})
	}
	wg.Wait()
	if !o.stopped {
		return notes
	}
	kept := notes[:0]
	for _, n := range notes {
		if n.Rel <= g.stopRel {
			kept = append(kept, n)
		}
	}
	return kept
}

// orderedResult is what the search of one file found.
type orderedResult struct {
	rel  string
	fh   FileHits
	note *Note
}

// inOrder adds the results of files searched out of order in the order
// of their sequence numbers.
type inOrder struct {
	g       *Grep
	cancel  context.CancelFunc
	mu      sync.Mutex
	cond    *sync.Cond
	next    int // the first file whose result is not in
	done    map[int]orderedResult
	stopped bool
}

// wait blocks until the file seq is within the window of the next result
// due, and reports whether the search goes on.
func (o *inOrder) wait(seq int) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for seq >= o.next+orderWindow && !o.stopped {
		o.cond.Wait()
	}
	return !o.stopped
}

// put records the result of file seq and adds every result now due, in
// order, stopping the search once they fill the limit.
func (o *inOrder) put(seq int, r orderedResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	o.done[seq] = r
	for {
		r, ok := o.done[o.next]
		if !ok {
			break
		}
		delete(o.done, o.next)
		o.next++
		o.g.keep(r.fh, r.note)
		if o.g.stopAt(r.rel) {
			o.stopped = true
			o.cancel()
			break
		}
	}
	o.cond.Broadcast()
}

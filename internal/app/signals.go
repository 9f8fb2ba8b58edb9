package app

import (
	"context"
	"os"
	"os/signal"
)

// stopContext is signal.NotifyContext without its wait: the returned
// context ends at the first of sigs, and stop undoes the handling. The
// handlers are installed on another goroutine, because the process's
// first signal.Notify takes 0.4 ms (the runtime starts the thread that
// receives signals), which the answer to the editor's first request
// would otherwise wait for. A signal in the moment before they are in
// place has its default effect, as one before agent-ls started would.
func stopContext(sigs ...os.Signal) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	installed := make(chan struct{})
	go func() {
		signal.Notify(ch, sigs...)
		close(installed)
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel()
		<-installed
		signal.Stop(ch)
	}
}

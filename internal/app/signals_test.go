//go:build unix

package app

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// The context ends at the signal once the handler is in place, which it
// is soon after stopContext returns; stop then takes the handler away.
func TestStopContextEndsAtTheSignal(t *testing.T) {
	// SIGUSR1 would end the test process while nothing handles it.
	guard := make(chan os.Signal, 16)
	signal.Notify(guard, syscall.SIGUSR1)
	defer signal.Stop(guard)
	ctx, stop := stopContext(syscall.SIGUSR1)
	if ctx.Err() != nil {
		t.Fatal("ended before any signal")
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for ctx.Err() == nil {
		syscall.Kill(os.Getpid(), syscall.SIGUSR1)
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	stop()
	stop2Ctx, stop2 := stopContext(syscall.SIGUSR2)
	stop2()
	if stop2Ctx.Err() == nil {
		t.Fatal("stop left the context running")
	}
}

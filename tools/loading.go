package tools

import (
	"context"
	"fmt"
	"sync"
	"time"

	"agentmem/memory"
)

// DefaultLoadWait bounds how long a call waits for a memory that is still
// loading (the built-in model takes about 2 s on an idle machine).
const DefaultLoadWait = 2 * time.Minute

// Loading is the memory service the tools run on, possibly still on its
// way (a server answers initialize and the lists at once, while the store
// opens and the model loads). A call waits for it, up to a bound, and gets
// the error that stopped it if it failed: every call, for as long as the
// server runs.
type Loading struct {
	done chan struct{}
	once sync.Once
	svc  *memory.Service
	err  error
	wait time.Duration
	what string
}

// NewLoading returns a memory service still loading, which Done completes;
// what names what is loading (for the message of a call that waited too
// long) and wait bounds each call's wait (DefaultLoadWait if zero).
func NewLoading(what string, wait time.Duration) *Loading {
	if wait <= 0 {
		wait = DefaultLoadWait
	}
	return &Loading{done: make(chan struct{}), wait: wait, what: what}
}

// Loaded is svc, ready.
func Loaded(svc *memory.Service) *Loading {
	l := NewLoading("", 0)
	l.Done(svc, nil)
	return l
}

// Done ends the loading with svc, or with err if it failed; only the first
// call counts.
func (l *Loading) Done(svc *memory.Service, err error) {
	l.once.Do(func() {
		if err == nil && svc == nil {
			err = fmt.Errorf("no memory service")
		}
		l.svc, l.err = svc, err
		close(l.done)
	})
}

// Service waits for the memory service (up to the bound, or ctx) and
// returns it, or why there is none.
func (l *Loading) Service(ctx context.Context) (*memory.Service, error) {
	select {
	case <-l.done:
		return l.svc, l.err
	default:
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case <-l.done:
		return l.svc, l.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, fmt.Errorf("agentmem is still loading %s after %s; try again shortly", l.what, l.wait)
	}
}

// via runs a tool's handler on the memory service once it is there.
func via[In, Out any](mem *Loading, f func(handlers, context.Context, In) (Out, string, error)) handler[In, Out] {
	return func(ctx context.Context, in In) (Out, string, error) {
		svc, err := mem.Service(ctx)
		if err != nil {
			var zero Out
			return zero, "", err
		}
		return f(handlers{svc: svc}, ctx, in)
	}
}

//go:build unix

package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/server"
)

// records keeps every log record: its level and its text.
type records struct {
	mu   sync.Mutex
	recs []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", rec.Level, rec.Message)
	rec.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	r.mu.Lock()
	r.recs = append(r.recs, b.String())
	r.mu.Unlock()
	return nil
}

// at returns the records at level or above.
func (r *records) at(level slog.Level) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.recs {
		var l slog.Level
		if l.UnmarshalText([]byte(strings.Fields(s)[0])) == nil && l >= level {
			out = append(out, s)
		}
	}
	return out
}

func (r *records) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.recs, "\n")
}

// failingOut is a client's end of stdout that fails every write with err
// (EPIPE: the client closed it), and says when it was first written to.
type failingOut struct {
	err     error
	once    sync.Once
	written chan struct{}
}

func newFailingOut(err error) *failingOut { return &failingOut{err: err, written: make(chan struct{})} }

func (f *failingOut) Write(p []byte) (int, error) {
	f.once.Do(func() { close(f.written) })
	return 0, f.err
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}` + "\n"

// A host that closes its end of stdout (normal shutdown) makes the
// server's write fail with EPIPE: that is logged at debug, never as an
// error. Any other write failure is still an error.
func TestStdioClientClosed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		wantError bool
	}{
		{"closed pipe", syscall.EPIPE, false},
		{"real fault", syscall.EIO, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &records{}
			in, feed := io.Pipe()
			out := newFailingOut(tc.err)
			s := mcpserver.NewMCPServer("t", "1")
			served := make(chan error, 1)
			go func() { served <- server.ServeStdio(context.Background(), s, in, out, slog.New(rec)) }()
			feed.Write([]byte(initLine))
			recv(t, out.written, "a write to stdout")
			// the server logs the failed write after it
			for deadline := time.Now().Add(10 * time.Second); len(rec.at(slog.LevelDebug)) == 0 && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			feed.Close()
			if err := recv(t, served, "end of ServeStdio"); err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
			errs := rec.at(slog.LevelError)
			if tc.wantError && len(errs) == 0 {
				t.Errorf("a write failing with %v logged no error; records:\n%s", tc.err, rec)
			}
			if !tc.wantError {
				if len(errs) > 0 {
					t.Errorf("the client closing stdout logged errors: %v", errs)
				}
				if len(rec.at(slog.LevelDebug)) == 0 {
					t.Errorf("the failed write was not logged at all (debug expected)")
				}
			}
		})
	}
}

// A relay whose client closed its end of stdout ends, at debug, and does
// not mistake it for the holder going away (it used to reattach). Any
// other write failure ends it with an error.
func TestRelayClientClosed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		wantError bool
	}{
		{"closed pipe", syscall.EPIPE, false},
		{"real fault", syscall.EIO, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHolders(t)
			a := hs.first(time.Second)
			defer a.Close()
			conn, err := net.Dial("unix", hs.sock)
			if err != nil {
				t.Fatal(err)
			}
			rec := &records{}
			in, feed := io.Pipe()
			defer feed.Close()
			out := newFailingOut(tc.err)
			relayed := make(chan error, 1)
			go func() {
				relayed <- server.Relay(context.Background(), hs.sock, conn, in, out, server.RelayOptions{
					Wait:   time.Second,
					Logger: slog.New(rec),
					Takeover: func(context.Context) (io.Closer, error) {
						t.Error("the relay tried to take over: its client closed, the holder is still there")
						return hs.start(time.Second)
					},
				})
			}()
			feed.Write([]byte(initLine))
			err = recv(t, relayed, "end of the relay")
			if tc.wantError {
				if err == nil || len(rec.at(slog.LevelError)) == 0 {
					t.Errorf("a write failing with %v: relay returned %v, records:\n%s", tc.err, err, rec)
				}
				return
			}
			if err != nil {
				t.Errorf("relay: %v", err)
			}
			if w := rec.at(slog.LevelInfo); len(w) > 0 {
				t.Errorf("the client closing stdout logged above debug: %v", w)
			}
			if !strings.Contains(rec.String(), "closed its end") {
				t.Errorf("no debug record of the client closing; records:\n%s", rec)
			}
		})
	}
}

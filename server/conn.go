package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// A socket connection is one MCP session of its own on the holder's one
// server: its log level, its client's info, its notifications. mcp-go's
// stdio server cannot serve several: it keeps one package-wide session, so
// connections shared their log level and took each other's notifications.

// connSession is the session of one connection.
type connSession struct {
	id          string
	notes       chan mcp.JSONRPCNotification
	initialized atomic.Bool
	level       atomic.Value // mcp.LoggingLevel
	info        atomic.Pointer[mcp.Implementation]
	caps        atomic.Pointer[mcp.ClientCapabilities]
}

var connSeq atomic.Int64

func newConnSession() *connSession {
	return &connSession{id: fmt.Sprintf("socket-%d", connSeq.Add(1)), notes: make(chan mcp.JSONRPCNotification, 100)}
}

func (c *connSession) SessionID() string                                   { return c.id }
func (c *connSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return c.notes }
func (c *connSession) Initialized() bool                                   { return c.initialized.Load() }
func (c *connSession) Initialize()                                         { c.initialized.Store(true) }
func (c *connSession) SetLogLevel(l mcp.LoggingLevel)                      { c.level.Store(l) }
func (c *connSession) SetClientInfo(i mcp.Implementation)                  { c.info.Store(&i) }
func (c *connSession) SetClientCapabilities(caps mcp.ClientCapabilities)   { c.caps.Store(&caps) }
func (c *connSession) GetClientInfo() mcp.Implementation                   { return deref(c.info.Load()) }
func (c *connSession) GetClientCapabilities() mcp.ClientCapabilities       { return deref(c.caps.Load()) }

func (c *connSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := c.level.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

// deref is *p, or the zero value for nil (nothing stored yet).
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

var (
	_ mcpserver.SessionWithLogging    = (*connSession)(nil)
	_ mcpserver.SessionWithClientInfo = (*connSession)(nil)
)

// serveConn serves the JSON-RPC lines of in as one session of s, writing
// responses and the session's notifications to out, until in ends; then
// it lets the requests it started finish. Requests run concurrently (a
// slow recall does not hold up the next call); notifications, in order.
func serveConn(ctx context.Context, s *mcpserver.MCPServer, in io.Reader, out io.Writer, logger *slog.Logger) error {
	cs := newConnSession()
	if err := s.RegisterSession(ctx, cs); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	defer s.UnregisterSession(ctx, cs.id)
	registerSession(cs.id, nil) // a local process: it may do everything
	defer unregisterSession(cs.id)
	ctx = s.WithContext(ctx, cs)
	var wmu sync.Mutex
	write := func(v any) {
		raw, err := json.Marshal(v)
		if err != nil {
			logger.Error("encoding a message to a socket client", "err", err)
			return
		}
		raw = fixCode(raw)
		wmu.Lock()
		defer wmu.Unlock()
		out.Write(append(raw, '\n'))
	}
	stop := make(chan struct{})
	pumped := make(chan struct{})
	go pumpNotes(cs, write, stop, pumped)
	var wg sync.WaitGroup
	err := readConn(in, func(line []byte) {
		m := peek(line)
		if m.kind != request {
			handle(ctx, s, line, write)
			return
		}
		wg.Go(func() { handle(ctx, s, line, write) })
	})
	wg.Wait()
	close(stop)
	<-pumped
	return err
}

// readConn calls fn on each line of in, until it ends.
func readConn(in io.Reader, fn func([]byte)) error {
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			fn(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// handle serves one message; a panic is an internal error of its request.
// (write's json.Marshal compacts an errorLine, dropping its newline.)
func handle(ctx context.Context, s *mcpserver.MCPServer, line []byte, write func(any)) {
	m := peek(line)
	defer func() {
		if p := recover(); p != nil && m.kind == request {
			write(json.RawMessage(errorLine(m.rawID, mcp.INTERNAL_ERROR, fmt.Sprintf("internal error: %v", p), nil)))
		}
	}()
	if m.kind == opaque && !json.Valid(line) {
		write(json.RawMessage(errorLine(nil, mcp.PARSE_ERROR, "Parse error", nil)))
		return
	}
	if res := s.HandleMessage(ctx, json.RawMessage(line)); res != nil {
		write(res)
	}
}

// pumpNotes writes cs's notifications until stop, then what is left.
func pumpNotes(cs *connSession, write func(any), stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case n := <-cs.notes:
			write(n)
		case <-stop:
			for {
				select {
				case n := <-cs.notes:
					write(n)
				default:
					return
				}
			}
		}
	}
}

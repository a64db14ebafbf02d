package server

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// clientLog is a slog.Handler that passes every record to next and also
// sends it, as an MCP log notification, to the client whose request the
// record's context belongs to, at or above the level that client chose
// with logging/setLevel. Records logged outside a request (no client
// session in the context) go to next only.
type clientLog struct {
	next   slog.Handler
	server *atomic.Pointer[mcpserver.MCPServer]
	attrs  []slog.Attr
}

func newClientLog(next slog.Handler) (*clientLog, func(*mcpserver.MCPServer)) {
	p := &atomic.Pointer[mcpserver.MCPServer]{}
	return &clientLog{next: next, server: p}, func(s *mcpserver.MCPServer) { p.Store(s) }
}

func (h *clientLog) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l) || mcpserver.ClientSessionFromContext(ctx) != nil
}

func (h *clientLog) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.next.Enabled(ctx, r.Level) {
		err = h.next.Handle(ctx, r)
	}
	s := h.server.Load()
	if s == nil || mcpserver.ClientSessionFromContext(ctx) == nil {
		return err
	}
	data := map[string]any{"message": r.Message}
	add := func(a slog.Attr) bool {
		if a.Key != "" {
			data[a.Key] = a.Value.Resolve().Any()
			if e, ok := data[a.Key].(error); ok {
				data[a.Key] = e.Error()
			}
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	// best effort: a client that cannot take it (not initialised, or a
	// full queue) still gets its response
	_ = s.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcpLevel(r.Level), Name, data))
	return err
}

func (h *clientLog) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(as)
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *clientLog) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	return &c
}

func mcpLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l >= slog.LevelError:
		return mcp.LoggingLevelError
	case l >= slog.LevelWarn:
		return mcp.LoggingLevelWarning
	case l >= slog.LevelInfo:
		return mcp.LoggingLevelInfo
	}
	return mcp.LoggingLevelDebug
}

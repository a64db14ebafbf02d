package server

import (
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"syscall"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves s on in/out (stdin/stdout) until in closes or ctx ends.
// Nothing else may write to out: it belongs to the protocol. A client that
// closes its end of out (a host shutting down) ends nothing worse than a
// debug record; any other failure to write is logged as an error.
func ServeStdio(ctx context.Context, s *mcpserver.MCPServer, in io.Reader, out io.Writer, logger *slog.Logger) error {
	stdio := mcpserver.NewStdioServer(s)
	registerSession("stdio", nil) // mcp-go's one stdio session: this process's own client
	defer unregisterSession("stdio")
	w := &closeWatch{w: out}
	stdio.SetErrorLogger(log.New(&stdioLog{log: logger, out: w}, "", 0))
	err := stdio.Listen(ctx, in, &fixingWriter{w: w})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// ClientClosed reports whether err, from a write to a client, says that
// the client closed its end (a pipe or connection with no reader left).
func ClientClosed(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe)
}

// closeWatch notes when the client has closed its end of w.
type closeWatch struct {
	w      io.Writer
	closed atomic.Bool
}

func (c *closeWatch) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && ClientClosed(err) {
		c.closed.Store(true)
	}
	return n, err
}

// stdioLog takes mcp-go's stdio error log: its complaints that a write
// failed once the client has closed its end are the client's normal
// shutdown (debug); everything else is an error.
type stdioLog struct {
	log *slog.Logger
	out *closeWatch
}

func (l *stdioLog) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	if l.out.closed.Load() && strings.HasPrefix(msg, "Error writing") {
		l.log.Debug("the client closed its end of stdout", "err", msg)
	} else {
		l.log.Error(msg)
	}
	return len(p), nil
}

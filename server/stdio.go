package server

import (
	"context"
	"errors"
	"io"
	"log/slog"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves s on in/out (stdin/stdout) until in closes or ctx ends.
// Nothing else may write to out: it belongs to the protocol.
func ServeStdio(ctx context.Context, s *mcpserver.MCPServer, in io.Reader, out io.Writer, logger *slog.Logger) error {
	stdio := mcpserver.NewStdioServer(s)
	registerSession("stdio", nil) // mcp-go's one stdio session: this process's own client
	defer unregisterSession("stdio")
	stdio.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelError))
	err := stdio.Listen(ctx, in, &fixingWriter{w: out})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

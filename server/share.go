package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// The embedded store is held by one process. So that two agents on one
// machine (say Claude Code and Claude Desktop) can both start
// `agentmem serve` on the same data directory, the process that holds the
// store also serves MCP sessions on a unix socket in the data directory, and
// a later process relays its stdio to that socket instead of failing.

// ServeSocket serves one stdio-style MCP session per connection on a unix
// socket at path until ctx ends, each on a server of its own from
// newServer (an mcp-go stdio session is one per server). The socket is
// private to the user (0600).
func ServeSocket(ctx context.Context, path string, newServer func() *mcpserver.MCPServer, logger *slog.Logger) error {
	os.Remove(path) // a socket left by a killed process; we hold the store lock
	ln, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return err
	}
	go func() {
		<-ctx.Done()
		ln.Close()
		os.Remove(path)
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			logger.Info("relayed MCP session opened")
			if err := ServeStdio(ctx, newServer(), conn, conn, logger); err != nil {
				logger.Warn("relayed MCP session ended", "err", err)
			}
		}()
	}
}

// Relay connects in/out to the MCP sessions served on the unix socket at
// path, until either side closes.
func Relay(ctx context.Context, path string, in io.Reader, out io.Writer) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return err
	}
	defer conn.Close()
	go func() {
		io.Copy(conn, in)
		// the client is done: let the server finish answering, then close
		if uc, ok := conn.(*net.UnixConn); ok {
			uc.CloseWrite()
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, conn)
		done <- err
	}()
	select {
	case <-ctx.Done():
		return nil
	case err := <-done:
		return err
	}
}

// SocketPath is where the process holding the store in dataDir serves
// relayed sessions.
func SocketPath(dataDir string) string { return filepath.Join(dataDir, "agentmem.sock") }

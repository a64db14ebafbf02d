package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Path is where the streamable HTTP transport listens.
const Path = "/mcp"

// HTTPHandler serves s as streamable HTTP at Path, plus /healthz. With a
// token, every request to Path must carry "Authorization: Bearer <token>".
func HTTPHandler(s *mcpserver.MCPServer, token string, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	mcp := mcpserver.NewStreamableHTTPServer(s,
		mcpserver.WithEndpointPath(Path),
		mcpserver.WithStreamableHTTPLogger(logger),
	)
	mux := http.NewServeMux()
	mux.Handle(Path, bearer(token, mcp))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok\n"))
	})
	return mux
}

func bearer(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentmem"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ServeHTTP listens on addr and serves h until ctx ends, then shuts down
// gracefully. ready, if not nil, receives the bound address (useful with
// port 0).
func ServeHTTP(ctx context.Context, addr string, h http.Handler, logger *slog.Logger, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	if ready != nil {
		ready(ln.Addr())
	}
	host := ln.Addr().String()
	if strings.HasPrefix(host, "[::]") || strings.HasPrefix(host, "0.0.0.0") {
		logger.Warn("listening on all interfaces: set --http-token, or bind to 127.0.0.1", "addr", host)
	}
	logger.Info("serving MCP over streamable HTTP", "url", "http://"+host+Path)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

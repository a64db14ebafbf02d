package server

import (
	"log/slog"
	"net/http"

	"agentmem/memory"
	"agentmem/server/web"
)

// WithBrowser adds the memory browser (package web: the page at / and its
// API under /api/, behind the same bearer token) to mcp, the handler of
// HTTPHandler, which keeps every other path (/mcp, /healthz).
func WithBrowser(mcp http.Handler, svc *memory.Service, token string, logger *slog.Logger) http.Handler {
	b := web.Handler(svc, token, logger)
	mux := http.NewServeMux()
	mux.Handle("/", mcp)
	mux.Handle("GET /{$}", b)
	mux.Handle("/assets/", b)
	mux.Handle("/api/", b)
	return mux
}

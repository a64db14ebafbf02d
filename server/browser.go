package server

import (
	"log/slog"

	"agentmem/memory"
	"agentmem/server/web"
)

// MountBrowser adds the memory browser (package web: the page at / and its
// API under /api/, behind the same bearer token and the same Origin check
// as /mcp) to h.
func MountBrowser(h *HTTP, svc *memory.Service, token string, logger *slog.Logger) {
	b := h.checkOrigin(web.Handler(svc, token, logger))
	h.mux.Handle("GET /{$}", b)
	h.mux.Handle("/assets/", b)
	h.mux.Handle("/api/", b)
}

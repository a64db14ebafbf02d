package server

import (
	"log/slog"

	"agentmem/memory"
	"agentmem/server/web"
)

// MountBrowser adds the memory browser (package web: the page at / and its
// API under /api/, behind the same authentication, per user, and the same
// Origin check as /mcp) to h. The page and its assets hold no data and
// need no token.
func MountBrowser(h *HTTP, svc *memory.Service, logger *slog.Logger) {
	page := h.checkOrigin(web.Handler(svc, logger))
	h.mux.Handle("GET /{$}", page)
	h.mux.Handle("/assets/", page)
	h.mux.Handle("/api/", h.checkOrigin(h.authenticate(web.Handler(svc, logger))))
}

package server

// ServeHTTPGrace is ServeHTTP with another shutdown grace, for tests.
var ServeHTTPGrace = serveHTTP

// ServeSocketGrace is ServeSocket with another shutdown grace, for tests.
var ServeSocketGrace = serveSocket

// Sessions is the number of sessions alive.
func (h *HTTP) Sessions() int {
	h.sessions.mu.Lock()
	defer h.sessions.mu.Unlock()
	return len(h.sessions.live)
}

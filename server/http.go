package server

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
)

// Path is where the streamable HTTP transport listens.
const Path = "/mcp"

// Limits of the HTTP transport.
const (
	// DefaultMaxBodyBytes bounds a request body: twice the content one
	// remember call may carry, room for JSON escaping.
	DefaultMaxBodyBytes = 2 * memory.MaxCallBytes
	// DefaultSessionIdle is how long a session may stay unused before it
	// is ended (its client gets 404 and initializes again, as the MCP
	// specification requires of it).
	DefaultSessionIdle = 30 * time.Minute
	// DefaultMaxSessions bounds the sessions alive at once; a new one
	// beyond it ends the one unused for longest.
	DefaultMaxSessions = 1000

	ReadHeaderTimeout = 10 * time.Second  // request line and headers
	ReadTimeout       = 60 * time.Second  // the whole request, body included
	IdleTimeout       = 120 * time.Second // a keep-alive connection between requests

	// ShutdownGrace bounds how long a server that is shutting down waits
	// for the calls it has started, over HTTP and on the socket.
	ShutdownGrace = 30 * time.Second
)

// HTTPOptions configure NewHTTP; zero values take the defaults above.
type HTTPOptions struct {
	// Token, if set, is required of every request to Path and /api/ as
	// "Authorization: Bearer <token>" (the scheme in any case), and opens
	// every namespace.
	Token string
	// Users, if set (instead of Token), authenticates each request and
	// says what it may do (a token file, an OAuth issuer); each session
	// belongs to the user who opened it.
	Users Users
	// ResourceMetadata, if set, is served at its RFC 9728 well-known path,
	// and a 401 points to it (OAuth resource-server mode).
	ResourceMetadata *mcpserver.ProtectedResourceMetadataConfig
	// ResourceMetadataURL is where that document is, as clients reach it.
	ResourceMetadataURL string
	// AllowOrigins are the browser origins (scheme://host[:port], or "*")
	// allowed besides pages served from localhost; requests without an
	// Origin header (every non-browser client) are not concerned.
	AllowOrigins []string
	MaxBodyBytes int64
	SessionIdle  time.Duration
	MaxSessions  int
	Logger       *slog.Logger
}

// HTTP serves an MCP server as streamable HTTP at Path, plus /healthz.
//
// On top of mcp-go's transport (which guards against DNS rebinding by the
// Host header on loopback connections, answers CORS for the allowed
// origins, and frees idle sessions) it enforces:
//   - Origin: a browser request from a page that is neither on localhost
//     nor allowed gets 403 (the MCP specification's defence against DNS
//     rebinding; same-origin is not enough, since a rebound name is
//     same-origin by construction);
//   - the bearer token;
//   - the body limit (413);
//   - the specification's session semantics for clients of protocol
//     versions up to 2025-11-25: a request other than initialize without
//     Mcp-Session-Id gets 400, one with an unknown, ended or expired id
//     gets 404, DELETE ends a session. Clients of 2026-07-28 and later have
//     no sessions and are left to mcp-go.
type HTTP struct {
	mcp      *mcpserver.StreamableHTTPServer
	sessions *sessions
	users    Users
	mux      *http.ServeMux
	opts     HTTPOptions
	origins  map[string]bool // the allowed, normalized, or "*"
}

// NewHTTP returns the HTTP transport of s. It fails on an allowed origin
// that is not one.
func NewHTTP(s *mcpserver.MCPServer, opts HTTPOptions) (*HTTP, error) {
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	h := &HTTP{opts: opts, origins: map[string]bool{}, users: opts.Users}
	if h.users == nil && opts.Token != "" {
		h.users = new(oneToken(sha256.Sum256([]byte(opts.Token))))
	}
	var cors []string
	for _, o := range opts.AllowOrigins {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o != "*" { // "*" is any origin
			norm, err := normalizeOrigin(o)
			if err != nil {
				return nil, err
			}
			o = norm
		}
		h.origins[o] = true
		cors = append(cors, o)
	}
	h.sessions = newSessions(opts.MaxSessions, h.endSession)
	mopts := []mcpserver.StreamableHTTPOption{
		mcpserver.WithEndpointPath(Path),
		mcpserver.WithStreamableHTTPLogger(opts.Logger),
		mcpserver.WithSessionIdManager(h.sessions),
		mcpserver.WithSessionIdleTTL(opts.SessionIdle),
	}
	if len(cors) > 0 {
		mopts = append(mopts, mcpserver.WithStreamableHTTPCORS(mcpserver.WithCORSAllowedOrigins(cors...)))
	}
	h.mcp = mcpserver.NewStreamableHTTPServer(s, mopts...)
	h.mux = http.NewServeMux()
	h.mux.Handle(Path, h.checkOrigin(h.authenticate(h.checkSession(h.mcp))))
	if m := opts.ResourceMetadata; m != nil {
		h.mux.Handle(mcpserver.ProtectedResourceMetadataPath(m.Resource), mcpserver.NewProtectedResourceMetadataHandler(*m))
	}
	h.mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok\n"))
	})
	return h, nil
}

// ServeHTTP refuses a request that came in on a loopback address under a
// name that is not a loopback one (a DNS rebinding: a page of evil.example,
// rebound to 127.0.0.1, is same-origin with this server and sends no
// Origin on a GET), on every path: /mcp, the browser's page and its API.
func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rebound(r) {
		h.opts.Logger.Warn("refused a request to a loopback address under another name (DNS rebinding?)", "host", r.Host, "remote", r.RemoteAddr)
		writeStatusError(w, r, http.StatusForbidden, fmt.Sprintf("Host %q is not this server's name: a server on a loopback address answers only to localhost and loopback addresses", r.Host))
		return
	}
	h.mux.ServeHTTP(w, r)
}

// rebound: the connection's local address is a loopback one, and the Host
// header names something else.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	ap, err := netip.ParseAddrPort(local.String())
	if err != nil || !ap.Addr().IsLoopback() {
		return false
	}
	host := r.Host
	if hp, _, err := net.SplitHostPort(host); err == nil {
		host = hp
	}
	return !isLoopback(strings.Trim(host, "[]"))
}

// Close ends every session and stops the sweeper of idle ones.
func (h *HTTP) Close() error { return h.mcp.Shutdown(context.Background()) }

// endSession frees what mcp-go keeps for a session that the session table
// dropped to make room: mcp-go's own DELETE path does exactly that.
func (h *HTTP) endSession(id string) {
	r, _ := http.NewRequest(http.MethodDelete, Path, nil)
	r.Header.Set(mcpserver.HeaderKeySessionID, id)
	h.mcp.ServeHTTP(discard{}, r)
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

func normalizeOrigin(o string) (string, error) {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("http-allow-origin: %q is not an origin: write scheme://host[:port], e.g. https://app.example.com, or * for any", o)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// originAllowed: no Origin (not a browser), an allowed one, or a page on
// localhost.
func (h *HTTP) originAllowed(origin string) bool {
	if origin == "" || h.origins["*"] {
		return true
	}
	norm, err := normalizeOrigin(origin)
	if err != nil {
		return false // "null" (sandboxed pages, file://) and other oddities
	}
	if h.origins[norm] {
		return true
	}
	u, _ := url.Parse(norm)
	return isLoopback(u.Hostname())
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

func (h *HTTP) checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); !h.originAllowed(o) {
			h.opts.Logger.Warn("refused a request from a browser page", "origin", o, "remote", r.RemoteAddr)
			writeStatusError(w, r, http.StatusForbidden, fmt.Sprintf("Origin %s is not allowed: this server accepts browser requests from pages on localhost and from the origins given with --http-allow-origin (AGENTMEM_HTTP_ALLOW_ORIGIN)", o))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkSession reads a POST's body within the limit, and applies the
// session rules mcp-go leaves open.
func (h *HTTP) checkSession(mcpHandler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next := mcpHandler
		modern := mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion))
		switch r.Method {
		case http.MethodPost:
			body, ok := h.readBody(w, r)
			if !ok {
				return
			}
			if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
				// mcp-go answers a batch "request body is not valid json"
				writeError(w, http.StatusBadRequest, "a JSON-RPC batch (an array) is not supported: MCP over HTTP takes one message per request (the 2025-06-18 protocol has no batches)")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if peek(body).method == string(mcp.MethodResourcesRead) {
				next = fixResourceReads(next)
			}
			if modern || startsSession(body) {
				next.ServeHTTP(h.binding(w, r), r)
				return
			}
		case http.MethodGet, http.MethodDelete:
			if modern {
				next.ServeHTTP(w, r)
				return
			}
		default:
			next.ServeHTTP(w, r)
			return
		}
		id := r.Header.Get(mcpserver.HeaderKeySessionID)
		if id == "" {
			writeError(w, http.StatusBadRequest, "missing Mcp-Session-Id header: send initialize first, then the session id it returns with every request")
			return
		}
		if !h.sessions.known(id, memory.AccessFrom(r.Context())) {
			writeError(w, http.StatusNotFound, "unknown or ended session (sessions end after "+h.opts.SessionIdle.String()+" unused): initialize a new one")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *HTTP) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := h.opts.MaxBodyBytes
	tooBig := func() ([]byte, bool) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"request body larger than %d bytes, this server's limit (one remember call carries at most %d bytes of content: send a long session in several calls with the same session_id)",
			limit, memory.MaxCallBytes))
		return nil, false
	}
	if r.ContentLength > limit {
		return tooBig()
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	var ne net.Error
	switch {
	case err == nil:
		return buf.Bytes(), true
	case errors.As(err, new(*http.MaxBytesError)):
		return tooBig()
	case errors.As(err, &ne) && ne.Timeout():
		writeError(w, http.StatusRequestTimeout, fmt.Sprintf("request body not received within %s", ReadTimeout))
	default:
		writeError(w, http.StatusBadRequest, "reading the request body: "+err.Error())
	}
	return nil, false
}

// startsSession: an initialize request (which gets a new session), or a
// message of protocol 2026-07-28 or later (which has none).
func startsSession(body []byte) bool {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	return m.Method == string(mcp.MethodInitialize) || mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion())
}

// writeError answers with status and a JSON-RPC error without an id, as the
// MCP specification suggests for transport-level refusals.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"jsonrpc": "2.0",
		"error":   map[string]any{"code": mcp.INVALID_REQUEST, "message": msg},
	})
}

// ServeHTTP listens on addr and serves h until ctx ends, then shuts down
// gracefully: it stops accepting, ends the sessions' listening streams,
// lets the calls in flight finish (for up to ShutdownGrace) and returns nil;
// an error only if calls had to be cut off. ready, if not nil, receives the
// bound address (useful with port 0).
func ServeHTTP(ctx context.Context, addr string, h *HTTP, logger *slog.Logger, ready func(net.Addr)) error {
	return serveHTTP(ctx, addr, h, logger, ready, ShutdownGrace)
}

func serveHTTP(ctx context.Context, addr string, h *HTTP, logger *slog.Logger, ready func(net.Addr), grace time.Duration) error {
	logger = cmp.Or(logger, slog.New(slog.DiscardHandler))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if ready != nil {
		ready(ln.Addr())
	}
	host := ln.Addr().String()
	if h.users == nil {
		if ap, err := netip.ParseAddrPort(host); err == nil && !ap.Addr().IsLoopback() {
			logger.Warn("listening beyond this machine without a token: set AGENTMEM_HTTP_TOKEN, or bind to 127.0.0.1", "addr", host)
		}
	}
	logger.Info("serving MCP over streamable HTTP", "url", "http://"+host+Path)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		h.Close()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(sctx) }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		// listening streams never end by themselves: end their sessions
		// (again, for any opened meanwhile), so that only calls in flight
		// keep the server up
		h.mcp.CloseSessions(sctx)
		select {
		case err := <-done:
			h.Close()
			if err != nil {
				srv.Close()
				return fmt.Errorf("HTTP shutdown: calls still running after %s were cut off", grace)
			}
			logger.Info("HTTP server stopped")
			return nil
		case <-tick.C:
		}
	}
}

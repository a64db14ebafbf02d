package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
)

// Users tells who sent a request: the memory.Access of its bearer token,
// or an error (the request gets 401). A token file (tokens.go) and an
// OAuth issuer (oauth.go) are Users.
type Users interface {
	Authenticate(r *http.Request) (*memory.Access, error)
}

// ErrNoToken: the request carries no bearer token.
var ErrNoToken = errors.New("missing bearer token")

// ErrTokenFile: the server cannot read its token file, so it accepts no
// token until the file is mended (the holder of a valid one is told that
// the server is at fault, not their token).
var ErrTokenFile = errors.New("the server cannot read its token file")

// bearerToken reads "Authorization: Bearer <token>", the scheme in any
// case, spaces around either part ignored.
func bearerToken(r *http.Request) (string, error) {
	scheme, tok, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	tok = strings.TrimSpace(tok)
	if !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", ErrNoToken
	}
	return tok, nil
}

// oneToken is the Users of --http-token: one token opens everything.
type oneToken [32]byte

func (want *oneToken) Authenticate(r *http.Request) (*memory.Access, error) {
	tok, err := bearerToken(r)
	if err != nil {
		return nil, err
	}
	got := sha256.Sum256([]byte(tok)) // hashed first: the compare leaks no length
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return nil, errors.New("wrong bearer token")
	}
	return nil, nil
}

// authenticate puts the request's Access in its context, or answers 401
// with a WWW-Authenticate that tells an OAuth client where to look
// (RFC 9728 §5.1).
func (h *HTTP) authenticate(next http.Handler) http.Handler {
	if h.users == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			next.ServeHTTP(w, r) // a CORS preflight carries no credentials
			return
		}
		a, err := h.users.Authenticate(r)
		if errors.Is(err, ErrTokenFile) {
			h.opts.Logger.Error("refused a request: the token file cannot be read", "remote", r.RemoteAddr, "err", err)
			writeStatusError(w, r, http.StatusServiceUnavailable, "the server cannot read its token file, so it accepts no token until it is mended; its log says why")
			return
		}
		if err != nil {
			h.opts.Logger.Info("refused a request without a valid token", "remote", r.RemoteAddr, "err", err)
			w.Header().Set("WWW-Authenticate", h.challenge(err))
			writeAuthError(w, r, "missing or wrong bearer token")
			return
		}
		next.ServeHTTP(w, r.WithContext(memory.WithAccess(r.Context(), a)))
	})
}

func (h *HTTP) challenge(err error) string {
	c := `Bearer realm="agentmem"`
	if h.opts.ResourceMetadataURL != "" {
		c += fmt.Sprintf(`, resource_metadata=%q`, h.opts.ResourceMetadataURL)
	}
	if !errors.Is(err, ErrNoToken) {
		c += `, error="invalid_token"`
	}
	return c
}

// writeAuthError answers 401 as the path's clients expect: JSON-RPC for
// /mcp, the browser API's {"error": ...} elsewhere.
func writeAuthError(w http.ResponseWriter, r *http.Request, msg string) {
	writeStatusError(w, r, http.StatusUnauthorized, msg)
}

// writeStatusError answers status with msg as the path's clients expect.
func writeStatusError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if r.URL.Path == Path {
		writeError(w, status, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "{\"error\":%q}\n", msg)
}

// owner is who a session belongs to: "" for a caller that may do
// everything.
func owner(a *memory.Access) string {
	if a == nil {
		return ""
	}
	return "user:" + a.User
}

// registry knows the Access of every live session of every transport, so
// that a list change is told only to the sessions that may read its
// namespace.
var registry sync.Map // session id -> *memory.Access

func registerSession(id string, a *memory.Access) { registry.Store(id, a) }
func unregisterSession(id string)                 { registry.Delete(id) }

// notifier tells s's sessions of a change in ns: all of them while no
// session is restricted, else each session that may read ns; the changes
// of listChangedEvery are told together.
func notifier(s *mcpserver.MCPServer) func(context.Context, string) {
	var (
		mu      sync.Mutex
		changed = map[string]bool{} // namespaces changed since the last telling
		timer   *time.Timer
	)
	tell := func() {
		mu.Lock()
		nss := changed
		changed, timer = map[string]bool{}, nil
		mu.Unlock()
		restricted := false
		registry.Range(func(_, v any) bool {
			restricted = v.(*memory.Access) != nil
			return !restricted
		})
		if !restricted {
			s.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
			return
		}
		registry.Range(func(k, v any) bool {
			for ns := range nss {
				if v.(*memory.Access).CanRead(ns) {
					_ = s.SendNotificationToSpecificClient(k.(string), mcp.MethodNotificationResourcesListChanged, nil)
					break
				}
			}
			return true
		})
	}
	return func(_ context.Context, ns string) {
		mu.Lock()
		defer mu.Unlock()
		changed[ns] = true
		if timer == nil {
			timer = time.AfterFunc(listChangedEvery, tell)
		}
	}
}

// listChangedEvery gathers the changes of the resource list: a session is
// told once of those made within it (twenty remembers told one client
// twenty times, and a client that lists again when told listed twenty
// times), at most that much after the first.
const listChangedEvery = 100 * time.Millisecond

// binding returns w, which binds the session that the response to r opens
// (initialize's Mcp-Session-Id) to r's caller.
func (h *HTTP) binding(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	return &bindWriter{ResponseWriter: w, bind: func() {
		if id := w.Header().Get(mcpserver.HeaderKeySessionID); id != "" && r.Header.Get(mcpserver.HeaderKeySessionID) == "" {
			h.sessions.bind(id, memory.AccessFrom(r.Context()))
		}
	}}
}

type bindWriter struct {
	http.ResponseWriter
	bind  func()
	bound bool
}

func (b *bindWriter) WriteHeader(code int) {
	if !b.bound {
		b.bound = true
		b.bind()
	}
	b.ResponseWriter.WriteHeader(code)
}

func (b *bindWriter) Write(p []byte) (int, error) {
	if !b.bound {
		b.WriteHeader(http.StatusOK)
	}
	return b.ResponseWriter.Write(p)
}

func (b *bindWriter) Flush() {
	if f, ok := b.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (b *bindWriter) Unwrap() http.ResponseWriter { return b.ResponseWriter }

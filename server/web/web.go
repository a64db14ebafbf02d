// Package web is the memory browser that `agentmem serve --http` serves at
// /: a page (plain HTML, CSS and JavaScript embedded in the binary, nothing
// from any other site) and its JSON API under /api/. The API goes through
// the same code as the MCP surface: the resources' listings (tools.
// Namespaces, Sessions, Transcript) and the recall and forget tools'
// handlers, with the same checks, limits and errors. It asks for the same
// bearer token as /mcp (checked by the server in front, per user with a
// token file or OAuth): the page keeps it in the tab's sessionStorage and
// sends it in the Authorization header, so no cookie exists that another
// site could ride on.
package web

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentmem/memory"
	"agentmem/memory/hybrid/entities"
	"agentmem/tools"
	"agentmem/tools/spec"
)

//go:embed assets
var assets embed.FS

// maxBody bounds a request body: a forget of 1,000 ids of 400 characters
// fits, with room.
const maxBody = 1 << 20

// Handler serves the page at / and /assets/, and the API at /api/, over
// svc. It checks no token: the server in front of it authenticates each
// /api/ request (the page itself is public: it holds no data) and puts the
// caller's memory.Access in the request's context, which every call
// below honours.
func Handler(svc *memory.Service, log *slog.Logger) http.Handler {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	static, _ := fs.Sub(assets, "assets")
	a := api{svc: svc, log: log}
	mux := http.NewServeMux()
	files := http.FileServerFS(static)
	mux.Handle("GET /{$}", noStore(files))
	mux.Handle("GET /assets/", noStore(http.StripPrefix("/assets/", files)))
	mux.Handle("GET /api/namespaces", a.serve(a.namespaces))
	mux.Handle("GET /api/sessions", a.serve(a.sessions))
	mux.Handle("GET /api/session", a.serve(a.session))
	mux.Handle("POST /api/recall", a.serve(a.recall))
	mux.Handle("POST /api/forget", a.serve(a.forget))
	mux.Handle("/api/", a.serve(func(r *http.Request) (any, error) {
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no API %s %s", r.Method, r.URL.Path)}
	}))
	return mux
}

// noStore keeps browsers from caching the page across agentmem versions,
// and forbids framing and inline scripts from elsewhere.
func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

type api struct {
	svc *memory.Service
	log *slog.Logger
}

type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// serve turns an endpoint's result or error into JSON.
func (a api) serve(fn func(r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		out, err := fn(r)
		if err != nil {
			status, msg := a.status(r.Context(), err)
			reply(w, status, map[string]string{"error": msg})
			return
		}
		reply(w, http.StatusOK, out)
	})
}

func (a api) status(ctx context.Context, err error) (int, string) {
	var he *httpError
	var fe *memory.FieldError
	var se *spec.FieldError
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return he.status, he.msg
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", mb.Limit)
	case errors.As(err, &fe):
		return http.StatusBadRequest, "invalid argument " + fe.Error()
	case errors.As(err, &se):
		return http.StatusBadRequest, "invalid argument " + se.Error()
	case errors.Is(err, memory.ErrForbidden):
		return http.StatusForbidden, err.Error()
	case errors.Is(err, memory.ErrNotFound):
		return http.StatusNotFound, err.Error()
	}
	a.log.ErrorContext(ctx, "memory browser API failed", "err", err)
	return http.StatusInternalServerError, err.Error()
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func (a api) namespaces(r *http.Request) (any, error) {
	return tools.Namespaces(r.Context(), a.svc)
}

func (a api) sessions(r *http.Request) (any, error) {
	q := r.URL.Query()
	limit := 0
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			return nil, &memory.FieldError{Field: "limit", Msg: fmt.Sprintf("must be a number, got %q", l)}
		}
		if n < 1 { // 0 would be the default page: a limit given is one asked for
			return nil, &memory.FieldError{Field: "limit", Msg: fmt.Sprintf("must be between 1 and %d, got %d", memory.MaxSessionPage, n)}
		}
		limit = n
	}
	return tools.Sessions(r.Context(), a.svc, memory.SessionsRequest{
		Namespace: q.Get("namespace"), After: q.Get("after"), Before: q.Get("before"), Limit: limit, Cursor: q.Get("cursor"),
	})
}

func (a api) session(r *http.Request) (any, error) {
	q := r.URL.Query()
	if q.Get("id") == "" {
		return nil, &memory.FieldError{Field: "id", Msg: "must name a session"}
	}
	return tools.Transcript(r.Context(), a.svc, q.Get("namespace"), q.Get("id"))
}

// decode reads a JSON body and checks it against the tool's schema, as
// the MCP server does with a tool call's arguments.
func decode[T any](r *http.Request) (T, error) {
	var zero T
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return zero, err
	}
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return zero, &httpError{http.StatusBadRequest, "the request body is not JSON: " + err.Error()}
	}
	return spec.Decode[T](json.RawMessage(raw))
}

// Match is one recalled memory, whole (tools.RecallWhole: the browser
// shows a long memory whole, where a model is shown its excerpt), with why
// it matched: the recall result's score and ranks, the entities of the
// query that it holds anywhere in it, and the time expressions of the
// query whose period its session is dated in.
type Match struct {
	spec.Recalled
	Namespace string   `json:"namespace"`
	Entities  []string `json:"entities,omitempty"`
	Dates     []string `json:"dates,omitempty"`
}

func (a api) recall(r *http.Request) (any, error) {
	in, err := decode[spec.RecallArgs](r)
	if err != nil {
		return nil, err
	}
	res, err := tools.RecallWhole(r.Context(), a.svc, in)
	if err != nil {
		return nil, err
	}
	ns := cmp.Or(in.Namespace, a.svc.DefaultNamespaceOf(r.Context()))
	asked := entities.Extract(in.Query)
	out := make([]Match, len(res.Memories))
	for i, m := range res.Memories {
		out[i] = Match{Recalled: m, Namespace: ns, Dates: datedIn(m.SessionDate, res.Periods)}
		if len(asked) == 0 {
			continue
		}
		held := entities.Extract(m.Speaker + ". " + m.Text)
		for _, e := range asked {
			if slices.ContainsFunc(held, func(h string) bool { return strings.EqualFold(h, e) }) {
				out[i].Entities = append(out[i].Entities, e)
			}
		}
	}
	// a list, never null, as memories is: the page reads both as lists
	periods := res.Periods
	if periods == nil {
		periods = []spec.Period{}
	}
	return map[string]any{"namespace": ns, "memories": out, "periods": periods, "time_boost": res.TimeBoost, "pending": res.Pending}, nil
}

// datedIn is the expressions of the periods (RFC 3339 in the result) that
// the session date falls in, as memory.Period.Contains tells.
func datedIn(sessionDate string, periods []spec.Period) []string {
	d, err := time.Parse(time.RFC3339, sessionDate)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range periods {
		from, err1 := time.Parse(time.RFC3339, p.From)
		to, err2 := time.Parse(time.RFC3339, p.To)
		if err1 == nil && err2 == nil && (memory.Period{From: from, To: to}).Contains(d) {
			out = append(out, p.Expression)
		}
	}
	return out
}

func (a api) forget(r *http.Request) (any, error) {
	in, err := decode[spec.ForgetArgs](r)
	if err != nil {
		return nil, err
	}
	if in.All {
		return nil, &memory.FieldError{Field: "all", Msg: "the browser deletes memories or sessions, never a whole namespace (use agentmem forget --all --confirm)"}
	}
	res, _, err := tools.Forget(r.Context(), a.svc, in)
	return res, err
}

package memory

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NamespaceInfo summarises one namespace.
type NamespaceInfo struct {
	Name     string `json:"name"`
	Memories int    `json:"memories"`
	Sessions int    `json:"sessions"`
	// First and Last are the earliest and the latest session date.
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// AddSessionInfo counts session si into out, the summaries of the
// namespaces so far, when the sessions come grouped by namespace: into its
// last one when si is of that namespace, else into a new one.
func AddSessionInfo(out []NamespaceInfo, si SessionInfo) []NamespaceInfo {
	if n := len(out); n == 0 || out[n-1].Name != si.Namespace {
		out = append(out, NamespaceInfo{Name: si.Namespace, First: si.Date, Last: si.Date})
	}
	ni := &out[len(out)-1]
	ni.Sessions++
	ni.Memories += si.Turns
	if si.Date.Before(ni.First) {
		ni.First = si.Date
	}
	if last := si.Latest(); last.After(ni.Last) {
		ni.Last = last
	}
	return out
}

// SessionInfo summarises one session: its date (that of its first turn),
// the date of its last turn when that is later (a session resumed days
// later: remember dates such a turn by its own timestamp), how many turns
// it holds, and the first words of its first turn.
type SessionInfo struct {
	Namespace string    `json:"namespace"`
	ID        string    `json:"id"`
	Date      time.Time `json:"date"`
	Last      time.Time `json:"last,omitzero"`
	Turns     int       `json:"turns"`
	Preview   string    `json:"preview"`
}

// Latest is the date of the session's last turn: Last, or Date when the
// session holds no later one.
func (si SessionInfo) Latest() time.Time {
	if si.Last.After(si.Date) {
		return si.Last
	}
	return si.Date
}

// SessionFilter selects and pages the sessions of a namespace: After and
// Before bound its dates (inclusive; zero means open): a session is kept
// when it has a turn on or after After and began on or before Before. Limit is the
// page size (0 means DefaultSessionPage) and Cursor is the Next of the
// previous page ("" for the first).
type SessionFilter struct {
	After, Before time.Time
	Limit         int
	Cursor        string
}

// SessionPage is one page of sessions, newest first. Next is the cursor of
// the following page, "" on the last; Total counts the sessions of the
// namespace before any filter (0: the namespace holds nothing).
type SessionPage struct {
	Sessions []SessionInfo `json:"sessions"`
	Next     string        `json:"next,omitempty"`
	Total    int           `json:"total"`
}

// Page sizes of session listings.
const (
	DefaultSessionPage = 50
	MaxSessionPage     = 1000
	previewWords       = 12
	previewTokens      = 40 // and at most about these, unless its first word is more
)

// Preview is the first words of a text (twelve, and about 40 tokens at
// most), on one line, for listings, its control characters shown
// (visible): a listing goes to terminals too. In text written without
// spaces each character is a word, and a very long word is cut into
// pieces (script.Pieces), shown as written.
func Preview(text string) string {
	n, u := 0, 0
	first, more := firstPieces(text, func(p string) bool {
		if n == previewWords || n > 0 && u+units(p) > 4*previewTokens {
			return false
		}
		n, u = n+1, u+units(p)
		return true
	})
	if more {
		return strings.Map(visible, first) + " …"
	}
	return strings.Map(visible, first)
}

// PageSessions cuts one page out of every session of a namespace: it keeps
// those dated within f's bounds, sorts them newest first (ties by id), and
// returns the Limit after f.Cursor. Stores gather the summaries (one per
// session, so a page costs a pass over the namespace's sessions, never
// over its memories' text) and leave the rest to this function, so every
// store pages alike.
func PageSessions(all []SessionInfo, f SessionFilter) (SessionPage, error) {
	limit := cmp.Or(f.Limit, DefaultSessionPage)
	if limit < 0 || limit > MaxSessionPage {
		return SessionPage{}, &FieldError{"limit", fmt.Sprintf("must be between 1 and %d, got %d", MaxSessionPage, f.Limit)}
	}
	page := SessionPage{Total: len(all), Sessions: []SessionInfo{}}
	kept := slices.DeleteFunc(slices.Clone(all), func(s SessionInfo) bool {
		return !f.After.IsZero() && s.Latest().Before(f.After) || !f.Before.IsZero() && s.Date.After(f.Before)
	})
	slices.SortFunc(kept, newestFirst)
	start := 0
	if f.Cursor != "" {
		at, err := decodeCursor(f.Cursor)
		if err != nil {
			return SessionPage{}, err
		}
		start, _ = slices.BinarySearchFunc(kept, at, newestFirst)
		if start < len(kept) && newestFirst(kept[start], at) == 0 {
			start++
		}
	}
	end := min(start+limit, len(kept))
	page.Sessions = append(page.Sessions, kept[start:end]...)
	if end < len(kept) {
		page.Next = encodeCursor(kept[end-1])
	}
	return page, nil
}

func newestFirst(a, b SessionInfo) int {
	if c := b.Date.Compare(a.Date); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// A cursor is the position of the last session of a page: its date and id.
func encodeCursor(s SessionInfo) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(s.Date.UnixNano(), 10) + " " + s.ID))
}

func decodeCursor(c string) (SessionInfo, error) {
	bad := &FieldError{"cursor", fmt.Sprintf("%q is not a cursor this server returned", c)}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return SessionInfo{}, bad
	}
	ns, id, ok := strings.Cut(string(raw), " ")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || id == "" {
		return SessionInfo{}, bad
	}
	return SessionInfo{ID: id, Date: time.Unix(0, n)}, nil
}

// ErrNotFound is returned for a namespace or a session that holds no
// memory.
var ErrNotFound = errors.New("not found")

// NotFoundError names what was not found.
type NotFoundError struct {
	What string // "namespace" or "session"
	Name string
	In   string // the namespace of a session
}

func (e *NotFoundError) Error() string {
	if e.In != "" && e.What == "session" && len(e.Name) < ShortSessionLen && uuidStart(e.Name) {
		return fmt.Sprintf("%s %q not found in namespace %q (a session id that is a UUID may be given by its first %d characters or more, not fewer)", e.What, e.Name, e.In, ShortSessionLen)
	}
	if e.In != "" {
		return fmt.Sprintf("%s %q not found in namespace %q", e.What, e.Name, e.In)
	}
	return fmt.Sprintf("%s %q not found (it holds no memory)", e.What, e.Name)
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Namespaces lists every namespace that holds a memory and that the
// caller may read.
func (s *Service) Namespaces(ctx context.Context) ([]NamespaceInfo, error) {
	ns, err := s.store.Namespaces(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	out := []NamespaceInfo{}
	for _, n := range ns {
		if AccessFrom(ctx).CanRead(n.Name) {
			out = append(out, n)
		}
	}
	return out, nil
}

// SessionsRequest asks for one page of a namespace's sessions.
type SessionsRequest struct {
	Namespace     string // "" means the service default
	After, Before string // inclusive dates, as recall's
	Limit         int    // 0 means DefaultSessionPage
	Cursor        string
}

// Sessions lists the sessions of a namespace, newest first. A namespace
// that holds nothing is a *NotFoundError.
func (s *Service) Sessions(ctx context.Context, req SessionsRequest) (SessionPage, error) {
	ns, err := s.ns(ctx, req.Namespace, false)
	if err != nil {
		return SessionPage{}, err
	}
	f := SessionFilter{Limit: req.Limit, Cursor: req.Cursor}
	if req.Limit < 0 || req.Limit > MaxSessionPage {
		return SessionPage{}, &FieldError{"limit", fmt.Sprintf("must be between 1 and %d, got %d", MaxSessionPage, req.Limit)}
	}
	if len(req.Cursor) > 512 {
		return SessionPage{}, &FieldError{"cursor", fmt.Sprintf("is %d characters; the limit is 512", len(req.Cursor))}
	}
	if f.After, f.Before, err = s.bounds(req.After, req.Before); err != nil {
		return SessionPage{}, err
	}
	page, err := s.store.Sessions(ctx, ns, f)
	if err != nil {
		if errors.As(err, new(*FieldError)) {
			return SessionPage{}, err
		}
		return SessionPage{}, fmt.Errorf("listing the sessions of namespace %s: %w", ns, err)
	}
	if page.Total == 0 {
		return SessionPage{}, &NotFoundError{What: "namespace", Name: ns}
	}
	return page, nil
}

// Session returns one session's memories in turn order. A session that
// holds nothing is a *NotFoundError.
func (s *Service) Session(ctx context.Context, namespace, sessionID string) ([]Memory, error) {
	ns, err := s.ns(ctx, namespace, false)
	if err != nil {
		return nil, err
	}
	if sessionID, err = s.sessionArg(ctx, ns, "session_id", sessionID); err != nil {
		return nil, err
	}
	ms, err := s.store.Session(ctx, ns, sessionID)
	if err != nil {
		return nil, fmt.Errorf("reading session %s of namespace %s: %w", sessionID, ns, err)
	}
	if len(ms) == 0 {
		return nil, &NotFoundError{What: "session", Name: sessionID, In: ns}
	}
	return ms, nil
}

// HasSession reports whether a session (its id, or the start of a UUID
// id) holds memories in the namespace, reading no more of it than its
// first memory where the store can (SessionEnds).
func (s *Service) HasSession(ctx context.Context, namespace, sessionID string) (bool, error) {
	ns, err := s.ns(ctx, namespace, false)
	if err != nil {
		return false, err
	}
	if sessionID, err = s.sessionArg(ctx, ns, "session_id", sessionID); err != nil {
		return false, err
	}
	if se, ok := s.store.(SessionEnds); ok {
		first, _, err := se.SessionEnds(ctx, ns, sessionID, 0)
		return first != nil, err
	}
	ms, err := s.store.Session(ctx, ns, sessionID)
	return len(ms) > 0, err
}

// DefaultNamespace is the namespace of calls that name none.
func (s *Service) DefaultNamespace() string { return s.namespace }

package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Access is what one caller (a user of a shared HTTP server) may do: the
// namespaces it may read, those it may also write, and the namespace of
// its calls that name none. A context without an Access (stdio, the local
// socket, the command line, a server with one token for all) may do
// everything. Every Service method that takes a namespace checks the
// context's Access (Service.ns), and Namespaces lists only what it may
// read, so no front end (tools, resources, completions, the browser's API)
// can forget to.
type Access struct {
	User    string
	Default string // the namespace of calls that name none ("": they must name one)
	Rules   []Rule
}

// Rule opens the namespaces that Pattern matches: a name, or a prefix
// ending in "*" ("team-*"; "*" alone is every namespace).
type Rule struct {
	Pattern string
	Write   bool
}

// ErrForbidden is returned for a namespace the caller may not use. Its
// message names the namespace and never says whether it holds anything.
var ErrForbidden = errors.New("not open to this caller")

type accessKey struct{}

// WithAccess returns ctx carrying a.
func WithAccess(ctx context.Context, a *Access) context.Context {
	return context.WithValue(ctx, accessKey{}, a)
}

// AccessFrom returns the Access of ctx, nil when it may do everything.
func AccessFrom(ctx context.Context) *Access {
	a, _ := ctx.Value(accessKey{}).(*Access)
	return a
}

// CanRead reports whether a opens ns for reading (nil opens everything).
func (a *Access) CanRead(ns string) bool { return a.allows(ns, false) }

// CanWrite reports whether a opens ns for writing.
func (a *Access) CanWrite(ns string) bool { return a.allows(ns, true) }

func (a *Access) allows(ns string, write bool) bool {
	if a == nil {
		return true
	}
	return slices.ContainsFunc(a.Rules, func(r Rule) bool {
		return (!write || r.Write) && matches(r.Pattern, ns)
	})
}

func matches(pattern, ns string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(ns, p)
	}
	return pattern == ns
}

// check refuses ns unless a opens it as asked.
func (a *Access) check(ns string, write bool) error {
	if a.allows(ns, write) {
		return nil
	}
	how := "read"
	if write && a.CanRead(ns) {
		how = "written (read-only)"
	}
	return fmt.Errorf("%w: namespace %q may not be %s by %s", ErrForbidden, ns, how, a.User)
}

// patterns are the namespaces and prefixes a opens, for messages.
func (a *Access) patterns() string {
	ps := make([]string, len(a.Rules))
	for i, r := range a.Rules {
		ps[i] = r.Pattern
	}
	return strings.Join(ps, ", ")
}

// Note is what a model connected as a is told beside the tools'
// instructions: for a caller that opens no default namespace (a token or
// claim of prefixes only), that every call must name one, and which it
// may; "" for any other (and for nil), whose calls that name none go to
// its default.
func (a *Access) Note() string {
	if a == nil || a.Default != "" {
		return ""
	}
	return fmt.Sprintf("- This connection has no default namespace: give \"namespace\" in every remember, recall and forget call, one that %s opens: %s.", a.User, a.patterns())
}

// DefaultNamespaceOf is the namespace of ctx's calls that name none.
func (s *Service) DefaultNamespaceOf(ctx context.Context) string {
	if a := AccessFrom(ctx); a != nil && a.Default != "" {
		return a.Default
	}
	return s.namespace
}

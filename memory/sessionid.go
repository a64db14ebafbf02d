package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ShortSessionLen is how many characters of a session id that is a UUID
// the text of a recall shows. Hosts name their sessions by UUIDs (Claude
// Code, Codex, ChatGPT and Claude.ai exports), and a UUID costs about 36
// tokens to a model (o200k), more than a short turn: shown whole in every
// passage header it would take a third of a recall's text. Its first 8
// hex digits cost 4 to 5 and, with the session's date beside them, name
// it; every argument that names a session accepts them (ResolveSession).
const ShortSessionLen = 8

// ShortSession is the id a recall's text shows for session id: the first
// ShortSessionLen characters of a UUID, any other id whole.
func ShortSession(id string) string {
	if isUUID(id) {
		return id[:ShortSessionLen]
	}
	return id
}

// isUUID reports whether s is a UUID in its canonical text form,
// 8-4-4-4-12 hex digits, in either case.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isHex(c) {
				return false
			}
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// shortForm reports whether id may be the start of a UUID a recall showed
// (at least ShortSessionLen characters, fewer than a whole UUID), so that
// an argument naming a session is looked up by its start.
func shortForm(id string) bool {
	if len(id) < ShortSessionLen || len(id) >= 36 {
		return false
	}
	const pattern = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
	for i := range len(id) {
		if pattern[i] == '-' && id[i] != '-' || pattern[i] == 'x' && !isHex(id[i]) {
			return false
		}
	}
	return true
}

// maxResolved bounds the sessions an ambiguous short id is reported with.
const maxResolved = 5

// ResolveSession returns the session a session argument names in
// namespace ns: the session of that very id when there is one, else the
// one session whose id is a UUID starting with it when the argument is
// the start of a UUID as a recall shows it (ShortSession), else the
// argument as it is (a session that holds nothing is the caller's to
// report). Several sessions starting with it are a *FieldError on field
// that names them.
func (s *Service) ResolveSession(ctx context.Context, field, ns, id string) (string, error) {
	if !shortForm(id) {
		return id, nil
	}
	ids, err := s.store.SessionIDs(ctx, ns, id, maxResolved+1)
	if err != nil {
		return "", fmt.Errorf("looking up the sessions of namespace %s that start with %s: %w", ns, id, err)
	}
	if slices.Contains(ids, id) {
		return id, nil
	}
	ids = slices.DeleteFunc(ids, func(s string) bool { return !isUUID(s) || !strings.HasPrefix(s, id) })
	switch {
	case len(ids) == 1:
		return ids[0], nil
	case len(ids) > 1:
		more := ""
		if len(ids) > maxResolved {
			ids, more = ids[:maxResolved], " and more"
		}
		return "", &FieldError{field, fmt.Sprintf("%q starts the ids of several sessions of namespace %s (%s%s); give more of the id", id, ns, strings.Join(ids, ", "), more)}
	}
	return id, nil
}

package spec

import (
	"strconv"

	"github.com/yosida95/uritemplate/v3"
)

// The resources' JSON contents (and the memory browser's API, which
// returns the same shapes).

// URIs of the resources.
const (
	NamespacesURI   = "agentmem://namespaces"
	SessionsURI     = "agentmem://{namespace}/sessions{?after,before,limit,cursor}"
	SessionURI      = "agentmem://{namespace}/sessions/{session_id}"
	MIMEJSON        = "application/json"
	MIMETranscript  = "text/markdown"
	ResourcePerPage = 100 // sessions per page of resources/list
)

// Namespace summarises one namespace (agentmem://namespaces holds a list).
type Namespace struct {
	Name     string `json:"name"`
	Memories int    `json:"memories"`
	Sessions int    `json:"sessions"`
	First    string `json:"first" jsonschema:"Earliest session date, RFC 3339."`
	Last     string `json:"last" jsonschema:"Latest session date, RFC 3339."`
}

// Session summarises one session.
type Session struct {
	Namespace string `json:"namespace"`
	ID        string `json:"id"`
	Date      string `json:"date" jsonschema:"RFC 3339."`
	Last      string `json:"last,omitempty" jsonschema:"RFC 3339: the date of its last turn, when that turn was said on a later day (a session resumed)."`
	Turns     int    `json:"turns"`
	Preview   string `json:"preview" jsonschema:"The first words of its first turn."`
	URI       string `json:"uri" jsonschema:"The session as a resource."`
}

// SessionsPage is one page of a namespace's sessions, newest first.
type SessionsPage struct {
	Sessions []Session `json:"sessions"`
	Next     string    `json:"next,omitempty" jsonschema:"Cursor of the next page; absent on the last."`
	Total    int       `json:"total" jsonschema:"Sessions in the namespace, before the date bounds."`
}

// Turn is one memory of a session, read in order.
type Turn struct {
	ID          string `json:"id"`
	Turn        int    `json:"turn"`
	Role        string `json:"role"`
	Speaker     string `json:"speaker,omitempty"`
	Text        string `json:"text"`
	SessionDate string `json:"session_date" jsonschema:"RFC 3339."`
	Timestamp   string `json:"timestamp,omitempty" jsonschema:"RFC 3339."`
}

// Transcript is one session read in turn order.
type Transcript struct {
	Namespace string `json:"namespace"`
	SessionID string `json:"session_id"`
	Date      string `json:"date" jsonschema:"RFC 3339."`
	Turns     []Turn `json:"turns"`
}

var (
	sessionTemplate  = uritemplate.MustNew(SessionURI)
	sessionsTemplate = uritemplate.MustNew(SessionsURI)
)

// SessionResource is the resource URI of a session.
func SessionResource(namespace, sessionID string) string {
	u, err := sessionTemplate.Expand(uritemplate.Values{
		"namespace":  uritemplate.String(namespace),
		"session_id": uritemplate.String(sessionID),
	})
	if err != nil { // the template is a constant; Expand fails only on a bad template
		panic(err)
	}
	return u
}

// SessionsResource is the resource URI of a page of a namespace's
// sessions; empty arguments are left out.
func SessionsResource(namespace, after, before string, limit int, cursor string) string {
	v := uritemplate.Values{"namespace": uritemplate.String(namespace)}
	for k, s := range map[string]string{"after": after, "before": before, "cursor": cursor} {
		if s != "" {
			v[k] = uritemplate.String(s)
		}
	}
	if limit > 0 {
		v["limit"] = uritemplate.String(strconv.Itoa(limit))
	}
	u, err := sessionsTemplate.Expand(v)
	if err != nil {
		panic(err)
	}
	return u
}

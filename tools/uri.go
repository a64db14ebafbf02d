package tools

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// A resource URI is read whole or refused: mcp-go matches templates
// loosely, and a URI with an unknown or repeated query parameter, or with
// no namespace, reached the handlers with the namespace missing, which
// read the default namespace under another's URI.

var (
	sessionsPath = uritemplate.MustNew("agentmem://{namespace}/sessions")
	sessionPath  = uritemplate.MustNew(spec.SessionURI)
)

// sessionsArgs parses a URI of spec.SessionsURI: the namespace, and each
// of after, before, limit and cursor at most once, with a value.
func sessionsArgs(uri string) (map[string]string, error) {
	base, query, _ := strings.Cut(uri, "?")
	args, err := pathArgs(uri, base, sessionsPath)
	if err != nil || !strings.Contains(uri, "?") {
		return args, err
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, badURI(uri, "its query does not parse: "+err.Error())
	}
	for k, vs := range q {
		switch {
		case k != "after" && k != "before" && k != "limit" && k != "cursor":
			return nil, badURI(uri, fmt.Sprintf("%q is not one of its parameters (after, before, limit, cursor)", k))
		case len(vs) != 1:
			return nil, badURI(uri, fmt.Sprintf("it gives %s %d times", k, len(vs)))
		case !strings.Contains(query, k+"="):
			return nil, badURI(uri, fmt.Sprintf("it gives %s without a value", k))
		}
		args[k] = vs[0]
	}
	return args, nil
}

// sessionArgs parses a URI of spec.SessionURI.
func sessionArgs(uri string) (map[string]string, error) {
	return pathArgs(uri, uri, sessionPath)
}

// pathArgs matches base with t, and requires that the values it finds
// spell base again (nothing left over, nothing read twice) and that the
// namespace is not empty.
func pathArgs(uri, base string, t *uritemplate.Template) (map[string]string, error) {
	vals := t.Match(base)
	if again, err := t.Expand(vals); vals == nil || err != nil || again != base {
		return nil, badURI(uri, "it does not have the form "+t.Raw())
	}
	args := map[string]string{}
	for _, name := range t.Varnames() {
		args[name] = vals.Get(name).String()
		if args[name] == "" {
			return nil, badURI(uri, "it names no "+name)
		}
	}
	return args, nil
}

func badURI(uri, why string) error {
	return &memory.FieldError{Field: "uri", Msg: fmt.Sprintf("%q is not a resource of this server: %s", uri, why)}
}

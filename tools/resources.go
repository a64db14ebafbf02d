package tools

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// Resources: the namespaces (agentmem://namespaces), a namespace's
// sessions (agentmem://{namespace}/sessions{?after,before,limit,cursor})
// and each session, read in turn order, as a transcript
// (agentmem://{namespace}/sessions/{session_id}), which a client can attach
// to a conversation. resources/list lists every session of every
// namespace, a page at a time; completion/complete offers namespaces and
// session ids for the templates' arguments.

// ServerOptions are the options of an MCP server that serves the
// resources: the resources capability (with list changes), completions,
// and the listing of sessions in resources/list.
func ServerOptions(mem *Loading, log *slog.Logger) []server.ServerOption {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	hooks := &server.Hooks{}
	hooks.AddOnRequestInitialization(checkRequest)
	// a caller that opens no default namespace is told so at once, not
	// by its first call's refusal
	// by initialize or, sessionless, by server/discover
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		res.Instructions = withAccessNote(ctx, res.Instructions)
	})
	hooks.AddAfterDiscover(func(ctx context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		res.Instructions = withAccessNote(ctx, res.Instructions)
	})
	hooks.AddAfterListResources(func(ctx context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		svc, err := mem.Service(ctx)
		if err != nil {
			log.ErrorContext(ctx, "resources/list: the memory is not available", "err", err)
			return
		}
		listSessions(ctx, svc, log, req, res)
	})
	return []server.ServerOption{
		server.WithResourceCapabilities(false, true),
		server.WithCompletions(),
		server.WithResourceCompletionProvider(completer{mem}),
		server.WithHooks(hooks),
	}
}

// withAccessNote is instructions with the note of ctx's caller
// (memory.Access.Note) after them, if any.
func withAccessNote(ctx context.Context, instructions string) string {
	if note := memory.AccessFrom(ctx).Note(); note != "" {
		return instructions + "\n" + note
	}
	return instructions
}

// Notifier tells the clients that may read namespace ns that the list of
// resources changed.
type Notifier func(ctx context.Context, ns string)

// RegisterResources adds the resources and their templates to s, and has
// notify (nil: every client of s) told whenever remember or forget changes
// the memory.
func RegisterResources(s *server.MCPServer, mem *Loading, notify Notifier) {
	if notify == nil {
		notify = func(context.Context, string) {
			s.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
		}
	}
	s.AddResource(mcp.NewResource(spec.NamespacesURI, "namespaces",
		mcp.WithResourceDescription("Every namespace that holds memories, with its number of memories and sessions and its first and last session date."),
		mcp.WithMIMEType(spec.MIMEJSON),
	), readNamespaces(mem))
	s.AddResourceTemplate(mcp.NewResourceTemplate(spec.SessionsURI, "sessions",
		mcp.WithTemplateDescription("The sessions of a namespace, newest first, with their date, number of turns and first words; after and before bound the session date, limit (1-1000, default 50) and cursor page."),
		mcp.WithTemplateMIMEType(spec.MIMEJSON),
	), readSessions(mem))
	s.AddResourceTemplate(mcp.NewResourceTemplate(spec.SessionURI, "session",
		mcp.WithTemplateDescription("One past conversation session, every turn in order with its speaker, as a transcript headed by the session's date. session_id may be the start of a UUID id as a recall shows it (8 characters or more)."),
		mcp.WithTemplateMIMEType(spec.MIMETranscript),
	), readSession(mem))
	s.Use(notifyChanges(notify))
}

// readNamespaces reads the namespaces resource: every namespace, as JSON.
func readNamespaces(mem *Loading) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		svc, err := mem.Service(ctx)
		if err != nil {
			return nil, err
		}
		ns, err := Namespaces(ctx, svc)
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, ns)
	}
}

// readSessions reads the sessions template: a page of a namespace's
// sessions, as JSON.
func readSessions(mem *Loading) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		a, err := sessionsArgs(req.Params.URI)
		if err != nil {
			return nil, err
		}
		limit, err := sessionsLimit(a["limit"])
		if err != nil {
			return nil, err
		}
		svc, err := mem.Service(ctx)
		if err != nil {
			return nil, err
		}
		page, err := Sessions(ctx, svc, memory.SessionsRequest{Namespace: a["namespace"], After: a["after"], Before: a["before"], Limit: limit, Cursor: a["cursor"]})
		if err != nil {
			return nil, err
		}
		return jsonContents(req.Params.URI, page)
	}
}

// sessionsLimit reads the sessions template's limit l: 0 (the default)
// when it is left out, else a number of at least 1.
func sessionsLimit(l string) (int, error) {
	if l == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(l)
	if err != nil {
		return 0, &memory.FieldError{Field: "limit", Msg: fmt.Sprintf("must be a number, got %q", l)}
	}
	if n < 1 { // 0 is the default only when limit is left out
		return 0, &memory.FieldError{Field: "limit", Msg: fmt.Sprintf("must be between 1 and %d, got %d", memory.MaxSessionPage, n)}
	}
	return n, nil
}

// readSession reads the session template: one session's transcript.
func readSession(mem *Loading) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		a, err := sessionArgs(req.Params.URI)
		if err != nil {
			return nil, err
		}
		svc, err := mem.Service(ctx)
		if err != nil {
			return nil, err
		}
		tr, err := Transcript(ctx, svc, a["namespace"], a["session_id"])
		if err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: spec.MIMETranscript, Text: RenderTranscript(tr)}}, nil
	}
}

// notifyChanges has notify told of the namespace a tool call changed
// (changed).
func notifyChanges(notify Notifier) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			if ns, ok := changed(req.Params.Name, res, err); ok {
				notify(ctx, ns)
			}
			return res, err
		}
	}
}

// changed says whether a tool call's result changed what resources/list
// shows, and in which namespace.
func changed(tool string, res *mcp.CallToolResult, err error) (string, bool) {
	if err != nil || res == nil || res.IsError {
		return "", false
	}
	switch r := res.StructuredContent.(type) {
	case spec.RememberResult:
		return r.Namespace, tool == "remember" && r.Stored > 0
	case spec.ForgetResult:
		return r.Namespace, tool == "forget" && r.Deleted > 0
	}
	return "", false
}

func jsonContents(uri string, v any) ([]mcp.ResourceContents, error) {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: spec.MIMEJSON, Text: string(raw)}}, nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// Namespaces lists the namespaces as the resource shows them.
func Namespaces(ctx context.Context, svc *memory.Service) ([]spec.Namespace, error) {
	ns, err := svc.Namespaces(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]spec.Namespace, len(ns))
	for i, n := range ns {
		out[i] = spec.Namespace{Name: n.Name, Memories: n.Memories, Sessions: n.Sessions, First: stamp(n.First), Last: stamp(n.Last)}
	}
	return out, nil
}

// Sessions lists a page of sessions as the resource shows them.
func Sessions(ctx context.Context, svc *memory.Service, req memory.SessionsRequest) (spec.SessionsPage, error) {
	page, err := svc.Sessions(ctx, req)
	if err != nil {
		return spec.SessionsPage{}, err
	}
	out := spec.SessionsPage{Sessions: make([]spec.Session, len(page.Sessions)), Next: page.Next, Total: page.Total}
	for i, s := range page.Sessions {
		out.Sessions[i] = spec.Session{Namespace: s.Namespace, ID: s.ID, Date: stamp(s.Date), Last: stamp(laterDay(s)), Turns: s.Turns, Preview: s.Preview, URI: spec.SessionResource(s.Namespace, s.ID)}
	}
	return out, nil
}

// Transcript reads a session in turn order.
func Transcript(ctx context.Context, svc *memory.Service, namespace, sessionID string) (spec.Transcript, error) {
	namespace = cmp.Or(namespace, svc.DefaultNamespaceOf(ctx))
	ms, err := svc.Session(ctx, namespace, sessionID)
	if err != nil {
		return spec.Transcript{}, err
	}
	// the session's own id: the argument may be its start (ShortSession)
	tr := spec.Transcript{Namespace: namespace, SessionID: ms[0].SessionID, Date: stamp(ms[0].SessionDate), Turns: make([]spec.Turn, len(ms))}
	for i, m := range ms {
		t := spec.Turn{ID: m.ID, Turn: m.Turn, Role: m.Role, Speaker: m.Speaker, Text: m.Text, SessionDate: stamp(m.SessionDate)}
		if m.Timestamp != nil {
			// in the zone the turn is dated in: a Claude Code turn's UTC
			// time is the evening before in Los Angeles
			t.Timestamp = stamp(m.Timestamp.In(m.SessionDate.Location()))
		}
		tr.Turns[i] = t
	}
	return tr, nil
}

// RenderTranscript writes a session as Markdown: a heading with its date,
// then each turn with its speaker and position, and its text quoted: every
// line of a turn's text begins with "> " (memory.Indent, as recall indents
// its memories), so that a text holding "**assistant** · turn 1" cannot
// pass for the next turn's header, read raw or rendered.
func RenderTranscript(tr spec.Transcript) string {
	var b strings.Builder
	date := tr.Date
	if t, err := time.Parse(time.RFC3339, tr.Date); err == nil {
		date = t.Format("Monday 2 January 2006, 15:04 MST")
	}
	// a turn is named by its position: its memory id is the session's id,
	// a colon and it, and a session id may cost a model 36 tokens (a UUID)
	fmt.Fprintf(&b, "# Session %s\n\nNamespace %s · %s · %s (a turn's memory id: the session's, ':' and the turn)\n", tr.SessionID, tr.Namespace, date, turns(len(tr.Turns)))
	for _, t := range tr.Turns {
		who := t.Role
		if t.Speaker != "" && !strings.EqualFold(t.Speaker, t.Role) {
			who = memory.OneLine(t.Speaker) + " (" + t.Role + ")"
		}
		when := ""
		if t.Timestamp != "" {
			when = " · " + t.Timestamp
		}
		if t.SessionDate != tr.Date && t.SessionDate != t.Timestamp { // dated apart from its session, not by its own time
			when += " · dated " + t.SessionDate
		}
		fmt.Fprintf(&b, "\n**%s** · turn %d%s\n\n%s%s\n", who, t.Turn, when, quote, memory.Indent(t.Text, quote))
	}
	return b.String()
}

// quote begins each line of a turn's text in a transcript.
const quote = "> "

// listCursor is where a resources/list page ends: a namespace and the
// cursor within it.
type listCursor struct {
	NS     string `json:"ns"`
	Cursor string `json:"c,omitempty"`
}

// decodeListCursor reads a cursor resources/list returned.
func decodeListCursor(c string) (listCursor, error) {
	var at listCursor
	raw, err := base64.StdEncoding.DecodeString(c)
	if err != nil || json.Unmarshal(raw, &at) != nil || at.NS == "" {
		return at, fmt.Errorf("cursor: %q is not a cursor this server returned", c[:min(len(c), 64)])
	}
	return at, nil
}

// listSessions fills resources/list with sessions, every namespace's in
// turn, spec.ResourcePerPage at a time; the static resources come first,
// on the first page. A failure is logged (and so sent to a client that
// asked for logs): the hook cannot fail the request.
func listSessions(ctx context.Context, svc *memory.Service, log *slog.Logger, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	if res == nil {
		return
	}
	var at listCursor
	if c := string(req.Params.Cursor); c != "" {
		var err error
		if at, err = decodeListCursor(c); err != nil { // refused before, when the request came
			log.ErrorContext(ctx, "resources/list: a cursor this server did not return", "cursor", c)
			res.Resources, res.NextCursor = []mcp.Resource{}, ""
			return
		}
		res.Resources = []mcp.Resource{} // the static ones were on the first page
	}
	res.NextCursor = ""
	namespaces, err := svc.Namespaces(ctx)
	if err != nil {
		log.ErrorContext(ctx, "resources/list: listing namespaces failed", "err", err)
		return
	}
	start := 0
	if at.NS != "" {
		start, _ = slices.BinarySearchFunc(namespaces, at.NS, func(n memory.NamespaceInfo, name string) int { return strings.Compare(n.Name, name) })
	}
	room := spec.ResourcePerPage
	for i := start; i < len(namespaces) && room > 0; i++ {
		ns := namespaces[i].Name
		cursor := ""
		if ns == at.NS {
			cursor = at.Cursor
		}
		page, err := svc.Sessions(ctx, memory.SessionsRequest{Namespace: ns, Limit: room, Cursor: cursor})
		if err != nil {
			log.ErrorContext(ctx, "resources/list: listing sessions failed", "namespace", ns, "err", err)
			return
		}
		for _, s := range page.Sessions {
			res.Resources = append(res.Resources, sessionResource(s))
		}
		room -= len(page.Sessions)
		next := listCursor{}
		switch {
		case page.Next != "":
			next = listCursor{NS: ns, Cursor: page.Next}
		case room == 0 && i+1 < len(namespaces):
			next = listCursor{NS: namespaces[i+1].Name}
		}
		if next.NS != "" {
			raw, _ := json.Marshal(next)
			res.NextCursor = mcp.Cursor(base64.StdEncoding.EncodeToString(raw))
			return
		}
	}
}

// laterDay is the date of s's last turn when it falls on a later day than
// its first, else zero.
func laterDay(s memory.SessionInfo) time.Time {
	if s.Latest().Format(time.DateOnly) == s.Date.Format(time.DateOnly) {
		return time.Time{}
	}
	return s.Latest()
}

func sessionResource(s memory.SessionInfo) mcp.Resource {
	return mcp.Resource{
		URI:         spec.SessionResource(s.Namespace, s.ID),
		Name:        s.Namespace + "/" + s.ID,
		Title:       fmt.Sprintf("%s · %s", s.Date.Format("2006-01-02"), s.Preview),
		Description: fmt.Sprintf("Conversation session %s of namespace %s, %s, %s: %s", s.ID, s.Namespace, s.Date.Format("Mon 2 Jan 2006"), turns(s.Turns), s.Preview),
		MIMEType:    spec.MIMETranscript,
	}
}

// completer offers namespaces and session ids for the templates' arguments.
type completer struct{ mem *Loading }

// maxCompletionScan bounds how many sessions a completion looks through
// (the newest), so completing in a huge namespace stays quick.
const maxCompletionScan = 1000

func (c completer) CompleteResourceArgument(ctx context.Context, uri string, a mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	svc, err := c.mem.Service(ctx)
	if err != nil {
		return nil, err
	}
	var all []string
	switch a.Name {
	case "namespace":
		ns, err := svc.Namespaces(ctx)
		if err != nil {
			return nil, err
		}
		for _, n := range ns {
			all = append(all, n.Name)
		}
	case "session_id":
		ns := cc.Arguments["namespace"]
		page, err := svc.Sessions(ctx, memory.SessionsRequest{Namespace: ns, Limit: maxCompletionScan})
		if err != nil {
			return &mcp.Completion{Values: []string{}}, nil // an unknown namespace has no sessions to offer
		}
		for _, s := range page.Sessions {
			all = append(all, s.ID)
		}
	default:
		return &mcp.Completion{Values: []string{}}, nil
	}
	match := []string{}
	for _, v := range all {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(a.Value)) {
			match = append(match, v)
		}
	}
	out := &mcp.Completion{Values: match, Total: len(match)}
	if len(match) > 100 {
		out.Values, out.HasMore = match[:100], true
	}
	return out, nil
}

func turns(n int) string {
	return spec.Count(n, "turn")
}

package server_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
	"agentmem/server"
	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// Sessions are resources: listed a page at a time, read as transcripts,
// templated, with completions for their arguments.
func TestResourcesCompletionsAndLogging(t *testing.T) {
	ts := httpServer(t, "")
	ctx := context.Background()
	c, err := dial(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	remember := func(ns, session, date string, turns ...spec.Message) {
		t.Helper()
		if _, _, err := c.Remember(ctx, spec.RememberArgs{Namespace: ns, SessionID: session, SessionDate: date, Messages: turns}); err != nil {
			t.Fatal(err)
		}
	}
	remember("alice", "chat/2023:05", "2023-05-08", spec.Message{Role: "user", Speaker: "Alice", Content: "I went to the Nordstrom sale yesterday."}, spec.Message{Role: "assistant", Content: "Did you buy anything?"})
	remember("alice", "s-june", "2023-06-02", spec.Message{Role: "user", Content: "My daughter plays the violin."})
	remember("bob", "b1", "2023-01-15", spec.Message{Role: "user", Content: "I adopted a cat."})
	const uuid = "01680260-06c8-4eee-9979-fbed74082f77" // a host's session id
	remember("bob", uuid, "2023-01-16", spec.Message{Role: "user", Content: "The cat is called Miso."})
	for i := range 120 {
		remember("many", fmt.Sprintf("m%03d", i), fmt.Sprintf("2022-01-01T00:%02d:%02dZ", i/60, i%60), spec.Message{Role: "user", Content: fmt.Sprintf("note %d", i)})
	}

	first, err := c.MCP().(interface {
		ListResourcesByPage(context.Context, mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error)
	}).ListResourcesByPage(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Resources) != 1+spec.ResourcePerPage || first.NextCursor == "" || first.Resources[0].URI != spec.NamespacesURI {
		t.Fatalf("first page: %d resources (first %q), next %q; want the namespaces and %d sessions, and a cursor", len(first.Resources), first.Resources[0].URI, first.NextCursor, spec.ResourcePerPage)
	}
	// a cursor this server never returned is an error naming it, not an
	// empty page a client would read as the list's end
	for _, junk := range []string{"junk", "e30="} { // base64 both; {} the second
		_, err := c.MCP().(interface {
			ListResourcesByPage(context.Context, mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error)
		}).ListResourcesByPage(ctx, mcp.ListResourcesRequest{PaginatedRequest: mcp.PaginatedRequest{Params: mcp.PaginatedParams{Cursor: mcp.Cursor(junk)}}})
		if err == nil || !strings.Contains(err.Error(), `cursor: "`+junk+`" is not a cursor this server returned`) {
			t.Errorf("resources/list with the cursor %q: %v", junk, err)
		}
	}
	// nor a cursor on a list returned whole: mcp-go read any base64 as
	// its own and answered an empty page
	junk := mcp.PaginatedRequest{Params: mcp.PaginatedParams{Cursor: "junk"}}
	mc := c.MCP().(interface {
		ListToolsByPage(context.Context, mcp.ListToolsRequest) (*mcp.ListToolsResult, error)
		ListResourceTemplatesByPage(context.Context, mcp.ListResourceTemplatesRequest) (*mcp.ListResourceTemplatesResult, error)
	})
	if _, err := mc.ListToolsByPage(ctx, mcp.ListToolsRequest{PaginatedRequest: junk}); err == nil || !strings.Contains(err.Error(), "is not a cursor this server returned") {
		t.Errorf("tools/list with the cursor junk: %v", err)
	}
	if _, err := mc.ListResourceTemplatesByPage(ctx, mcp.ListResourceTemplatesRequest{PaginatedRequest: junk}); err == nil || !strings.Contains(err.Error(), "is not a cursor this server returned") {
		t.Errorf("resources/templates/list with the cursor junk: %v", err)
	}
	if res, err := mc.ListToolsByPage(ctx, mcp.ListToolsRequest{}); err != nil || len(res.Tools) != 4 {
		t.Errorf("tools/list without a cursor: %v", err)
	}
	all, err := c.Resources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range all {
		uris = append(uris, r.URI)
	}
	if len(uris) != 1+4+120 || len(slices.Compact(slices.Sorted(slices.Values(uris)))) != len(uris) {
		t.Fatalf("resources/list over every page: %d resources, want 125 distinct", len(uris))
	}
	want := "agentmem://alice/sessions/chat%2F2023%3A05"
	if !slices.Contains(uris, want) {
		t.Fatalf("resources lack %s: %v", want, uris[:5])
	}

	text, err := c.ReadResource(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	nordstrom, anything := strings.Index(text, "Nordstrom"), strings.Index(text, "Did you buy anything?")
	if !strings.HasPrefix(text, "# Session chat/2023:05\n") || !strings.Contains(text, "Monday 8 May 2023") || !strings.Contains(text, "**Alice (user)**") || nordstrom < 0 || anything < nordstrom {
		t.Errorf("transcript =\n%s", text)
	}
	// a session whose id is a UUID, read by the start a recall shows of it
	if text, err := c.ReadResource(ctx, "agentmem://bob/sessions/01680260"); err != nil || !strings.HasPrefix(text, "# Session "+uuid+"\n") || !strings.Contains(text, "Miso") {
		t.Errorf("reading session %s by its start: %v\n%s", uuid, err, text)
	}
	if _, err := c.ReadResource(ctx, "agentmem://alice/sessions/nope"); err == nil || !strings.Contains(err.Error(), `session "nope" not found in namespace "alice"`) || strings.Contains(err.Error(), "internal error") {
		t.Errorf("reading a session that does not exist: %v", err)
	}

	ns, err := c.Namespaces(ctx)
	if err != nil || len(ns) != 3 || ns[0].Name != "alice" || ns[0].Memories != 3 || ns[0].Sessions != 2 {
		t.Errorf("namespaces = %+v, %v", ns, err)
	}
	page, err := c.Sessions(ctx, "alice", "2023-05-01", "", 1, "")
	if err != nil || len(page.Sessions) != 1 || page.Sessions[0].ID != "s-june" || page.Next == "" || page.Total != 2 {
		t.Fatalf("sessions page = %+v, %v", page, err)
	}
	page, err = c.Sessions(ctx, "alice", "2023-05-01", "", 1, page.Next)
	if err != nil || len(page.Sessions) != 1 || page.Sessions[0].URI != want || page.Next != "" {
		t.Errorf("second sessions page = %+v, %v", page, err)
	}
	if _, err := c.Sessions(ctx, "nobody", "", "", 0, ""); err == nil || !strings.Contains(err.Error(), `namespace "nobody" not found`) {
		t.Errorf("sessions of a namespace that does not exist: %v", err)
	}
	if _, err := c.Sessions(ctx, "alice", "31 February", "", 0, ""); err == nil || !strings.Contains(err.Error(), "after") {
		t.Errorf("sessions after a bad date: %v", err)
	}

	tpl, err := c.MCP().ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var raws []string
	for _, rt := range tpl.ResourceTemplates {
		raws = append(raws, rt.URITemplate.Raw())
	}
	if !slices.Contains(raws, spec.SessionURI) || !slices.Contains(raws, spec.SessionsURI) {
		t.Errorf("templates = %v", raws)
	}

	complete := func(arg, value string, ctxArgs map[string]string) []string {
		t.Helper()
		req := mcp.CompleteRequest{}
		req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: spec.SessionURI}
		req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
		req.Params.Context = mcp.CompleteContext{Arguments: ctxArgs}
		res, err := c.MCP().Complete(ctx, req)
		if err != nil {
			t.Fatalf("complete %s=%q: %v", arg, value, err)
		}
		return res.Completion.Values
	}
	if got := complete("namespace", "A", nil); !slices.Equal(got, []string{"alice"}) {
		t.Errorf("namespace completions of A = %v", got)
	}
	if got := complete("session_id", "ch", map[string]string{"namespace": "alice"}); !slices.Equal(got, []string{"chat/2023:05"}) {
		t.Errorf("session completions of ch in alice = %v", got)
	}
	if got := complete("session_id", "m00", map[string]string{"namespace": "many"}); len(got) != 10 {
		t.Errorf("session completions of m00 in many = %v, want m000-m009", got)
	}
}

// A client that sets a log level gets the server's log records of its own
// calls; every client hears that the resource list changed.
func TestLoggingAndListChanged(t *testing.T) {
	ctx := context.Background()
	e := &fake.Embedder{Name: "t"}
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true, EmbedderID: e.ID(), Dims: e.Dims()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.InProcess(ctx, server.New(svc, server.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var mu sync.Mutex
	var notes []mcp.JSONRPCNotification
	c.MCP().OnNotification(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, n)
	})
	seen := func() (logged, failed, listChanged bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range notes {
			switch n.Method {
			case "notifications/message":
				d, _ := n.Params.AdditionalFields["data"].(map[string]any)
				if d["tool"] == "recall" && d["message"] == "tool call" {
					logged = true
				}
				if n.Params.AdditionalFields["level"] == "error" && d["tool"] == "forget" {
					failed = true
				}
			case mcp.MethodNotificationResourcesListChanged:
				listChanged = true
			}
		}
		return
	}
	if _, _, err := c.Recall(ctx, spec.RecallArgs{Query: "anything"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if logged, _, _ := seen(); logged {
		t.Fatal("a client that set no level received debug logs")
	}
	if err := c.MCP().SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s1", Messages: []spec.Message{{Role: "user", Content: "hello there"}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Recall(ctx, spec.RecallArgs{Query: "hello"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		logged, _, listChanged := seen()
		if logged && listChanged {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s: a debug log of the recall call %v, a list_changed %v; notifications %+v", logged, listChanged, notes)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Twenty remembers in a row tell a watching client of the changed list a
// few times at most, not twenty (a new-user trial saw twenty identical
// list_changed in one response), and still tell it after the last.
func TestListChangedGathered(t *testing.T) {
	ctx := context.Background()
	s := server.New(testService(t), server.Options{})
	writer, err := client.InProcess(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	watcher, err := client.InProcess(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	var told atomic.Int64
	watcher.MCP().OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationResourcesListChanged {
			told.Add(1)
		}
	})
	for i := range 20 {
		if _, _, err := writer.Remember(ctx, spec.RememberArgs{SessionID: fmt.Sprintf("s%d", i), Messages: []spec.Message{{Role: "user", Content: "hello"}}}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "a list_changed after the remembers", func() bool { return told.Load() > 0 })
	time.Sleep(300 * time.Millisecond) // any later one
	if n := told.Load(); n > 5 {
		t.Errorf("twenty remembers told the watching client %d times", n)
	}
}

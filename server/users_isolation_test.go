package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/server"
	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// usersServer serves svc over HTTP with a token file of two users: alice
// (writes alice, reads shared) and bob (writes bob), and the browser.
func usersServer(t *testing.T, svc *memory.Service) (ts *httptest.Server, file, alice, bob string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "tokens.json")
	var err error
	if alice, err = server.AddToken(file, server.TokenEntry{User: "alice", Write: []string{"alice"}, Read: []string{"shared"}, Default: "alice"}); err != nil {
		t.Fatal(err)
	}
	if bob, err = server.AddToken(file, server.TokenEntry{User: "bob", Write: []string{"bob"}, Default: "bob"}); err != nil {
		t.Fatal(err)
	}
	users, err := server.OpenTokens(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, ts := newHTTP(t, server.New(svc, server.Options{}), server.HTTPOptions{Users: users})
	server.MountBrowser(h, svc, nil)
	return ts, file, alice, bob
}

// seen collects a client's notifications as text.
type seen struct {
	mu    sync.Mutex
	texts []string
}

func (s *seen) watch(c *client.Client) {
	c.MCP().OnNotification(func(n mcp.JSONRPCNotification) {
		raw, _ := json.Marshal(n)
		s.mu.Lock()
		s.texts = append(s.texts, string(raw))
		s.mu.Unlock()
	})
}

func (s *seen) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.texts...)
}

// bobWords are in bob's memories only; no answer to alice may hold one,
// nor bob's namespace or session names.
var bobWords = []string{"narwhal", "trombone", "saffron", "b-secret", `"bob"`, "agentmem://bob"}

// Two users of one server, alice and bob, each with a token of their own.
// Every path is tried as alice on bob's namespace: each tool (with bob's
// namespace, with bob's session and memory ids, in every fusion), each
// resource and template, resources/list, completions, each /api/ route,
// bob's session id, and the notifications alice's session receives while
// bob works. No answer holds anything of bob's, nothing of bob's changes,
// and alice's read-only namespace takes no write.
func TestUsersIsolation(t *testing.T) {
	ctx := context.Background()
	svc := testService(t)
	ts, _, aliceTok, bobTok := usersServer(t, svc)
	if _, err := svc.Remember(ctx, memory.RememberRequest{Namespace: "shared", SessionID: "family", SessionDate: "2023-05-01", Messages: []memory.Message{{Role: "user", Content: "The family trip is in August."}}}); err != nil {
		t.Fatal(err)
	}
	dialAs := func(tok string) *client.Client {
		c, err := client.HTTP(ctx, ts.URL+server.Path, map[string]string{"Authorization": "Bearer " + tok},
			client.WithProtocol(legacy), client.WithHTTP(transport.WithContinuousListening()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	alice, bob := dialAs(aliceTok), dialAs(bobTok)
	var aliceSaw seen
	aliceSaw.watch(alice)
	if err := alice.MCP().SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatal(err)
	}
	bobRes, _, err := bob.Remember(ctx, spec.RememberArgs{SessionID: "b-secret", SessionDate: "2023-05-02", Messages: []spec.Message{
		{Role: "user", Content: "The narwhal plays the trombone.", ID: "bm1"}, {Role: "user", Content: "Saffron rice for dinner."}}})
	if err != nil || bobRes.Namespace != "bob" {
		t.Fatalf("bob's remember: %+v %v", bobRes, err)
	}
	if r, _, err := alice.Remember(ctx, spec.RememberArgs{SessionID: "a1", SessionDate: "2023-05-03", Messages: []spec.Message{{Role: "user", Content: "The quokka smiles."}}}); err != nil || r.Namespace != "alice" {
		t.Fatalf("alice's remember went to %q: %v", r.Namespace, err)
	}

	attempts, leaks := 0, 0
	check := func(what, text string) {
		t.Helper()
		attempts++
		for _, w := range bobWords {
			if strings.Contains(text, w) {
				leaks++
				t.Errorf("leak: %s answered with bob's %s:\n%s", what, w, text)
				return
			}
		}
	}
	refused := func(what string, text string, err error) {
		t.Helper()
		var te *client.ToolError
		if err == nil || (errors.As(err, &te) && !strings.Contains(te.Text, "refused")) {
			t.Errorf("%s: not refused: %v %s", what, err, text)
		}
		msg := ""
		if err != nil {
			msg = strings.ReplaceAll(err.Error(), `namespace "bob"`, "namespace B") // naming what was asked is no leak
		}
		check(what, text+msg)
	}
	tools := attackTools(ctx, alice, bobRes.IDs, refused, check)
	resources := attackResources(ctx, t, alice, refused, check)
	api := attackAPI(t, ts.URL, aliceTok, bobRes.IDs, check)
	sessionsHijacked := attackSession(t, ts.URL, aliceTok, bobTok, check)

	// notifications: bob's changes are not told to alice, nor logged to her
	// (what alice's own calls changed is told first: changes are told
	// together, within 100 ms)
	time.Sleep(300 * time.Millisecond)
	before := len(aliceSaw.all())
	if _, _, err := bob.Remember(ctx, spec.RememberArgs{SessionID: "b-secret", Messages: []spec.Message{{Role: "user", Content: "The narwhal again."}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := bob.Forget(ctx, spec.ForgetArgs{IDs: bobRes.IDs[1:]}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	for _, n := range aliceSaw.all()[before:] {
		if strings.Contains(n, "list_changed") {
			t.Errorf("alice was told of bob's change: %s", n)
		}
	}
	// and alice's own are (the notifications do reach her)
	if _, _, err := alice.Remember(ctx, spec.RememberArgs{SessionID: "a1", Messages: []spec.Message{{Role: "user", Content: "The quokka again."}}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "alice's own list change", func() bool { return strings.Contains(strings.Join(aliceSaw.all(), ""), "list_changed") })
	notes := aliceSaw.all()
	for _, n := range notes {
		check("a notification to alice", n)
	}

	// bob's memories are all there, and shared took no write
	ms, err := svc.Session(ctx, "bob", "b-secret")
	if err != nil || len(ms) != 2 {
		t.Errorf("bob's session after the attacks: %d memories, %v; want 2 (his own forget took one, his remember added one)", len(ms), err)
	}
	if ms, err := svc.Session(ctx, "shared", "family"); err != nil || len(ms) != 1 {
		t.Errorf("alice's read-only namespace changed: %d memories, %v", len(ms), err)
	}
	t.Logf("attempts as alice on bob: %d through the tools, %d through resources, lists and completions, %d through /api/, %d with bob's session id, %d notifications read: %d in all, %d leaks",
		tools, resources, api, sessionsHijacked, len(notes), attempts, leaks)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s: no %s", what)
		}
	}
}

// attackTools tries every tool as alice on bob's namespace and memories.
func attackTools(ctx context.Context, alice *client.Client, bobIDs []string, refused func(string, string, error), check func(string, string)) int {
	n := 0
	for _, ns := range []string{"bob", "shared"} {
		_, text, err := alice.Remember(ctx, spec.RememberArgs{Namespace: ns, SessionID: "b-secret", Messages: []spec.Message{{Role: "user", Content: "overwrite"}}})
		refused("remember into "+ns, text, err)
		for _, f := range []spec.ForgetArgs{{Namespace: ns, IDs: bobIDs}, {Namespace: ns, SessionID: "b-secret"}, {Namespace: ns, All: true, Confirm: true}} {
			_, text, err := alice.Forget(ctx, f)
			refused(fmt.Sprintf("forget %+v", f), text, err)
			n++
		}
		n++
	}
	for _, fusion := range []string{"rrf", "rsf", "text", "vector", "rerank"} {
		for _, q := range []string{"narwhal trombone", "saffron", "b-secret"} {
			_, text, err := alice.Recall(ctx, spec.RecallArgs{Namespace: "bob", Query: q, Fusion: fusion})
			refused("recall in bob", text, err)
			_, text, err = alice.Recall(ctx, spec.RecallArgs{Query: q, Fusion: fusion, K: 50})
			check("recall in alice's default", text)
			_, text, err = alice.Recall(ctx, spec.RecallArgs{Query: q, Fusion: fusion, SessionID: "b-secret"})
			check("recall of bob's session id", text)
			n += 3
		}
	}
	_, text, _ := alice.Forget(ctx, spec.ForgetArgs{IDs: bobIDs})
	// the result names the ids it was given that named no memory in
	// alice's namespace (what alice asked, as an error may); nothing else
	// of bob's may show
	check("forget of bob's ids in alice's default", strings.Replace(text, "named no memory there: "+strings.Join(bobIDs, ", ")+".", "named no memory there: IDS.", 1))
	_, text, _ = alice.Forget(ctx, spec.ForgetArgs{SessionID: "b-secret"})
	check("forget of bob's session id in alice's default", text)
	return n + 2
}

// attackResources reads bob's resources and lists and completes as alice.
func attackResources(ctx context.Context, t *testing.T, alice *client.Client, refused func(string, string, error), check func(string, string)) int {
	n := 0
	for _, uri := range []string{"agentmem://bob/sessions", "agentmem://bob/sessions?limit=10", spec.SessionResource("bob", "b-secret"), "agentmem:///sessions/b-secret", "agentmem://bob/sessions/b-secret?x=1"} {
		text, err := alice.ReadResource(ctx, uri)
		if err == nil {
			t.Errorf("read %s as alice: %s", uri, text)
		}
		check("read "+uri, text) // the error names the URI asked for
		n++
	}
	for _, uri := range []string{spec.NamespacesURI, spec.SessionsResource("alice", "", "", 0, ""), spec.SessionsResource("shared", "", "", 0, "")} {
		text, err := alice.ReadResource(ctx, uri)
		if err != nil {
			t.Errorf("read %s as alice: %v", uri, err)
		}
		check("read "+uri, text)
		n++
	}
	all, err := alice.Resources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(all)
	check("resources/list", string(raw))
	for _, c := range []struct{ arg, value, ns string }{{"namespace", "", ""}, {"namespace", "b", ""}, {"session_id", "", "bob"}, {"session_id", "b", "bob"}, {"session_id", "", ""}} {
		req := mcp.CompleteRequest{}
		req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: spec.SessionURI}
		req.Params.Argument = mcp.CompleteArgument{Name: c.arg, Value: c.value}
		req.Params.Context = mcp.CompleteContext{Arguments: map[string]string{"namespace": c.ns}}
		res, err := alice.MCP().Complete(ctx, req)
		raw, _ := json.Marshal(res)
		check(fmt.Sprintf("complete %+v", c), string(raw)+fmt.Sprint(err))
		n++
	}
	return n + 1
}

// attackAPI calls each /api/ route as alice on bob.
func attackAPI(t *testing.T, base, tok string, bobIDs []string, check func(string, string)) int {
	ids, _ := json.Marshal(bobIDs)
	calls := []struct {
		method, path, body string
		want               int
	}{
		{"GET", "/api/namespaces", "", 200},
		{"GET", "/api/sessions?namespace=bob", "", 403},
		{"GET", "/api/sessions", "", 200},
		{"GET", "/api/session?namespace=bob&id=b-secret", "", 403},
		{"GET", "/api/session?id=b-secret", "", 404},
		{"POST", "/api/recall", `{"namespace":"bob","query":"narwhal"}`, 403},
		{"POST", "/api/recall", `{"query":"narwhal trombone saffron","k":50}`, 200},
		{"POST", "/api/forget", `{"namespace":"bob","ids":` + string(ids) + `}`, 403},
		{"POST", "/api/forget", `{"namespace":"bob","session_id":"b-secret"}`, 403},
		{"POST", "/api/forget", `{"namespace":"shared","session_id":"family"}`, 403},
	}
	for _, c := range calls {
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s as alice: %d %s, want %d", c.method, c.path, resp.StatusCode, raw, c.want)
		}
		text := string(raw)
		if resp.StatusCode != 200 { // an error may name what was asked
			text = strings.NewReplacer(`namespace \"bob\"`, "namespace B", `session \"b-secret\"`, "session S").Replace(text)
		}
		check(c.method+" "+c.path, text)
	}
	return len(calls)
}

// attackSession uses bob's session id with alice's token.
func attackSession(t *testing.T, base, aliceTok, bobTok string, check func(string, string)) int {
	bobSession := initialize(t, base, map[string]string{"Authorization": "Bearer " + bobTok})
	n := 0
	for _, body := range []string{listBody, `{"jsonrpc":"2.0","id":3,"method":"resources/list"}`, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"recall","arguments":{"query":"narwhal"}}}`} {
		resp, text := do(t, "POST", base, bobSession, body, map[string]string{"Authorization": "Bearer " + aliceTok})
		if resp.StatusCode != 404 {
			t.Errorf("alice with bob's session id: %d %s, want 404", resp.StatusCode, text)
		}
		check("a request on bob's session", text)
		n++
	}
	return n
}

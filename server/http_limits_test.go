package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agentmem/tools/client"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/server"
)

// legacy is a protocol version with sessions (before 2026-07-28).
const legacy = "2025-06-18"

// bare is an MCP server with one tool, "echo"; unregistered counts the
// sessions mcp-go has let go of.
func bare(unregistered *atomic.Int64) *mcpserver.MCPServer {
	hooks := &mcpserver.Hooks{}
	hooks.AddOnUnregisterSession(func(context.Context, mcpserver.ClientSession) {
		if unregistered != nil {
			unregistered.Add(1)
		}
	})
	s := mcpserver.NewMCPServer("t", "1", mcpserver.WithToolCapabilities(false), mcpserver.WithHooks(hooks))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
	})
	return s
}

func newHTTP(t *testing.T, s *mcpserver.MCPServer, opts server.HTTPOptions) (*server.HTTP, *httptest.Server) {
	t.Helper()
	h, err := server.NewHTTP(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); h.Close() })
	return h, ts
}

// do sends one raw request to the MCP endpoint; a client timeout turns a
// hang into a failure.
func do(t *testing.T, method, url, session string, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url+server.Path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", legacy)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, server.Path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + legacy + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
const listBody = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

func initialize(t *testing.T, url string, hdr map[string]string) string {
	t.Helper()
	resp, body := do(t, "POST", url, "", initBody, hdr)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: %d %q, session %q", resp.StatusCode, body, id)
	}
	return id
}

func TestHTTPBodyLimit(t *testing.T) {
	_, ts := newHTTP(t, bare(nil), server.HTTPOptions{MaxBodyBytes: 1024})
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
	resp, body := do(t, "POST", ts.URL, "", big, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "larger than 1024 bytes") {
		t.Errorf("declared oversize body: %d %s", resp.StatusCode, body)
	}
	// without Content-Length (chunked), the limit holds while reading
	req, _ := http.NewRequest("POST", ts.URL+server.Path, io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r2.Body)
	r2.Body.Close()
	if r2.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "larger than 1024 bytes") {
		t.Errorf("chunked oversize body: %d %s", r2.StatusCode, b)
	}
	// under the limit: served
	if id := initialize(t, ts.URL, nil); id == "" {
		t.Error("no session")
	}
}

// The MCP specification's session rules for streamable HTTP.
func TestHTTPSessionSemantics(t *testing.T) {
	var gone atomic.Int64
	h, ts := newHTTP(t, bare(&gone), server.HTTPOptions{})
	id := initialize(t, ts.URL, nil)
	if resp, body := do(t, "POST", ts.URL, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); resp.StatusCode != http.StatusAccepted {
		t.Errorf("initialized: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, "POST", ts.URL, id, listBody, nil); resp.StatusCode != 200 || !strings.Contains(body, `"echo"`) {
		t.Errorf("tools/list in the session: %d %s", resp.StatusCode, body)
	}
	for _, c := range []struct {
		name, method, session, body string
		want                        int
	}{
		{"POST without a session", "POST", "", listBody, 400},
		{"POST with an unknown session", "POST", "mcp-session-made-up", listBody, 404},
		{"GET without a session", "GET", "", "", 400},
		{"GET with an unknown session", "GET", "mcp-session-made-up", "", 404},
		{"DELETE without a session", "DELETE", "", "", 400},
		{"DELETE of an unknown session", "DELETE", "mcp-session-made-up", "", 404},
	} {
		resp, body := do(t, c.method, ts.URL, c.session, c.body, nil)
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, resp.StatusCode, body, c.want)
		}
		if c.want == 400 && !strings.Contains(body, "Mcp-Session-Id") {
			t.Errorf("%s: the error does not name the header: %s", c.name, body)
		}
	}
	if resp, body := do(t, "DELETE", ts.URL, id, "", nil); resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, "POST", ts.URL, id, listBody, nil); resp.StatusCode != 404 {
		t.Errorf("POST in a deleted session: %d %s, want 404", resp.StatusCode, body)
	}
	if n := h.Sessions(); n != 0 {
		t.Errorf("%d sessions alive after DELETE", n)
	}
	if gone.Load() != 1 {
		t.Errorf("mcp-go let go of %d sessions, want 1", gone.Load())
	}
	// a client of protocol 2026-07-28 has no session at all
	modern := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if resp, body := do(t, "POST", ts.URL, "", modern, map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}); resp.StatusCode != 200 || !strings.Contains(body, `"echo"`) {
		t.Errorf("sessionless request of protocol 2026-07-28: %d %s", resp.StatusCode, body)
	}
}

// A JSON-RPC batch gets an error that says so, not mcp-go's "not valid
// json".
func TestHTTPBatchRefused(t *testing.T) {
	_, ts := newHTTP(t, bare(nil), server.HTTPOptions{})
	resp, body := do(t, "POST", ts.URL, "", " ["+initBody+"]", nil)
	if resp.StatusCode != 400 || !strings.Contains(body, "batch (an array) is not supported") {
		t.Errorf("a batch: %d %s", resp.StatusCode, body)
	}
}

func TestHTTPOrigin(t *testing.T) {
	_, ts := newHTTP(t, bare(nil), server.HTTPOptions{})
	for origin, want := range map[string]int{
		"":                       200, // not a browser
		"http://localhost:5173":  200,
		"http://127.0.0.1:3000":  200,
		"http://[::1]:3000":      200,
		"http://evil.example":    403,
		"https://evil.example":   403,
		"null":                   403,
		"http://localhost.evil":  403,
		"http://127.0.0.1.evil/": 403,
	} {
		hdr := map[string]string{}
		if origin != "" {
			hdr["Origin"] = origin
		}
		resp, body := do(t, "POST", ts.URL, "", initBody, hdr)
		if resp.StatusCode != want {
			t.Errorf("Origin %q: %d %s, want %d", origin, resp.StatusCode, body, want)
		}
		if want == 403 && !strings.Contains(body, "--http-allow-origin") {
			t.Errorf("Origin %q: the refusal does not say how to allow it: %s", origin, body)
		}
	}

	_, ts = newHTTP(t, bare(nil), server.HTTPOptions{AllowOrigins: []string{"https://App.example.com/"}})
	resp, body := do(t, "POST", ts.URL, "", initBody, map[string]string{"Origin": "https://app.example.com"})
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Errorf("allowed origin: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if resp, _ := do(t, "POST", ts.URL, "", initBody, map[string]string{"Origin": "https://other.example.com"}); resp.StatusCode != 403 {
		t.Errorf("origin not on the list: %d", resp.StatusCode)
	}
	if _, err := server.NewHTTP(bare(nil), server.HTTPOptions{AllowOrigins: []string{"app.example.com"}}); err == nil || !strings.Contains(err.Error(), "http-allow-origin") {
		t.Errorf("an allowed origin without a scheme: %v", err)
	}
}

func TestHTTPBearerScheme(t *testing.T) {
	_, ts := newHTTP(t, bare(nil), server.HTTPOptions{Token: "s3cret"})
	for auth, want := range map[string]int{
		"Bearer s3cret":  200,
		"bearer s3cret":  200,
		"BEARER s3cret":  200,
		"Bearer  s3cret": 200,
		"Bearer wrong":   401,
		"Basic s3cret":   401,
		"s3cret":         401,
		"":               401,
	} {
		resp, body := do(t, "POST", ts.URL, "", initBody, map[string]string{"Authorization": auth})
		if resp.StatusCode != want {
			t.Errorf("Authorization %q: %d %s, want %d", auth, resp.StatusCode, body, want)
		}
	}
}

// Idle sessions end, and mcp-go frees what it kept for them.
func TestHTTPSessionExpiry(t *testing.T) {
	var gone atomic.Int64
	// not shorter: mcp-go's sweeper would race the initializes themselves
	// (it may sweep a session between the start and the end of its
	// initialize request, and the end registers it again)
	h, ts := newHTTP(t, bare(&gone), server.HTTPOptions{SessionIdle: 300 * time.Millisecond})
	const n = 50
	ids := make([]string, n)
	for i := range ids {
		ids[i] = initialize(t, ts.URL, nil)
	}
	deadline := time.Now().Add(20 * time.Second) // the sweeper runs every second
	for h.Sessions() > 0 || gone.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: %d sessions alive, %d of %d let go by mcp-go", h.Sessions(), gone.Load(), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, id := range ids[:3] {
		if resp, body := do(t, "POST", ts.URL, id, listBody, nil); resp.StatusCode != 404 {
			t.Errorf("expired session: %d %s, want 404", resp.StatusCode, body)
		}
	}
}

// Beyond the cap, a new session ends the one unused for longest.
func TestHTTPMaxSessions(t *testing.T) {
	var gone atomic.Int64
	h, ts := newHTTP(t, bare(&gone), server.HTTPOptions{MaxSessions: 3})
	var ids []string
	for range 3 {
		ids = append(ids, initialize(t, ts.URL, nil))
	}
	do(t, "POST", ts.URL, ids[0], listBody, nil) // ids[1] is now the least recently used
	ids = append(ids, initialize(t, ts.URL, nil))
	if h.Sessions() != 3 || gone.Load() != 1 {
		t.Errorf("%d sessions alive, %d let go, want 3 and 1", h.Sessions(), gone.Load())
	}
	for i, want := range []int{200, 404, 200, 200} {
		if resp, _ := do(t, "POST", ts.URL, ids[i], listBody, nil); resp.StatusCode != want {
			t.Errorf("session %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
}

// Beyond the cap, the session that ends is one of the user who holds the
// most: one token opening sessions without end ends its own, not another
// user's.
func TestHTTPMaxSessionsPerUser(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.json")
	alice, err := server.AddToken(file, server.TokenEntry{User: "alice", Write: []string{"alice"}, Default: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := server.AddToken(file, server.TokenEntry{User: "bob", Write: []string{"bob"}, Default: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	users, err := server.OpenTokens(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newHTTP(t, bare(nil), server.HTTPOptions{MaxSessions: 3, Users: users})
	as := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	bobs := initialize(t, ts.URL, as(bob)) // the least recently used of all
	var alices []string
	for range 5 {
		alices = append(alices, initialize(t, ts.URL, as(alice)))
	}
	if resp, body := do(t, "POST", ts.URL, bobs, listBody, as(bob)); resp.StatusCode != 200 {
		t.Errorf("bob's session after alice opened 5 with a cap of 3: %d %s, want it alive", resp.StatusCode, body)
	}
	for i, want := range []int{404, 404, 404, 200, 200} {
		if resp, _ := do(t, "POST", ts.URL, alices[i], listBody, as(alice)); resp.StatusCode != want {
			t.Errorf("alice's session %d: %d, want %d", i, resp.StatusCode, want)
		}
	}
}

// 2,000 initializes and no more use: once they expire, the memory they
// took is given back (the issue measured 204 MB kept for 20,000).
func TestHTTPSessionMemoryFreed(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 2,000 sessions")
	}
	var gone atomic.Int64
	h, err := server.NewHTTP(bare(&gone), server.HTTPOptions{SessionIdle: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	const n = 2000
	for range n {
		r := httptest.NewRequest("POST", server.Path, strings.NewReader(initBody))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			t.Fatalf("initialize: %d %s", w.Code, w.Body)
		}
	}
	peak := heap()
	t0 := time.Now()
	deadline := time.Now().Add(20 * time.Second)
	for h.Sessions() > 0 || gone.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: %d sessions alive, %d let go", h.Sessions(), gone.Load())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("expired in %s", time.Since(t0))
	after := heap()
	grew := int64(peak) - int64(before)
	kept := int64(after) - int64(before)
	t.Logf("heap: %d KB before, +%d KB with %d sessions, +%d KB after they expired", before>>10, grew>>10, n, kept>>10)
	if grew < 1<<20 {
		t.Fatalf("%d sessions took only %d bytes: the measure is too coarse to judge", n, grew)
	}
	if kept > grew/5 {
		t.Errorf("after expiry the heap still holds %d of the %d bytes the sessions took", kept, grew)
	}
}

// SIGTERM (ctx ending) with a client connected and a call in flight: the
// listening stream does not hold the server up, the call finishes and is
// answered, and the server stops without error.
func TestHTTPGracefulShutdown(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	s := bare(nil)
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-release
		return mcp.NewToolResultText("finished"), nil
	})
	h, err := server.NewHTTP(s, server.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- server.ServeHTTP(ctx, "127.0.0.1:0", h, nil, func(a net.Addr) { addr <- a }) }()
	url := "http://" + (<-addr).String()

	c, err := client.HTTP(context.Background(), url+server.Path, nil, client.WithProtocol(mcp.LATEST_LEGACY_PROTOCOL_VERSION), client.WithHTTP(transport.WithContinuousListening()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	answer := make(chan string, 1)
	go func() {
		text, err := callText(context.Background(), c, "slow", nil)
		if err != nil {
			text = "error: " + err.Error()
		}
		answer <- text
	}()
	<-started
	stop() // what SIGTERM does to serve
	select {
	case err := <-served:
		t.Fatalf("the server stopped with a call in flight: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if got := <-answer; got != "finished" {
		t.Errorf("the call in flight got %q", got)
	}
	if err := <-served; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func TestHTTPShutdownGraceRunsOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	s := bare(nil)
	s.AddTool(mcp.NewTool("stuck"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-release
		return mcp.NewToolResultText("late"), nil
	})
	h, err := server.NewHTTP(s, server.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() {
		served <- server.ServeHTTPGrace(ctx, "127.0.0.1:0", h, nil, func(a net.Addr) { addr <- a }, 200*time.Millisecond)
	}()
	url := "http://" + (<-addr).String()
	sid := initialize(t, url, nil)
	go func() {
		req, _ := http.NewRequest("POST", url+server.Path, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"stuck"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", legacy)
		req.Header.Set("Mcp-Session-Id", sid)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	stop()
	if err := <-served; err == nil || !strings.Contains(err.Error(), "cut off") {
		t.Errorf("shutdown with a call stuck past the grace: %v", err)
	}
}

package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"agentmem/memory"
	"agentmem/server"
	"agentmem/tools/spec"
)

// A resource URI that does not parse whole is refused: it never falls
// back to the default namespace (whose session "d1" holds "defaultonly").
func TestResourceURIsParseWhole(t *testing.T) {
	ts := httpServer(t, "")
	ctx := context.Background()
	c, err := dial(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, r := range []spec.RememberArgs{
		{SessionID: "d1", SessionDate: "2023-05-01", Messages: []spec.Message{{Role: "user", Content: "defaultonly secret"}}},
		{Namespace: "alice", SessionID: "chat/2023:05", SessionDate: "2023-05-02", Messages: []spec.Message{{Role: "user", Content: "alice's note"}}},
	} {
		if _, _, err := c.Remember(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, uri := range []string{
		"agentmem://alice/sessions?foo=bar",
		"agentmem://alice/sessions?limit=1&limit=2",
		"agentmem://alice/sessions?limit",
		"agentmem://alice/sessions?after=2023-01-01&foo=1",
		"agentmem:///sessions",
		"agentmem:///sessions/d1",
		"agentmem://alice/sessions/d1/extra",
		"agentmem://alice/sessions/",
		"agentmem://alice/sessionsx",
	} {
		text, err := c.ReadResource(ctx, uri)
		if err == nil {
			t.Errorf("%s: read, want an error:\n%s", uri, text)
			continue
		}
		if strings.Contains(err.Error()+text, "defaultonly") {
			t.Errorf("%s: the default namespace leaked: %v %s", uri, err, text)
		}
		if !strings.Contains(err.Error(), "is not a resource of this server") && !strings.Contains(err.Error(), "resource not found") {
			t.Errorf("%s: unclear error %v", uri, err)
		}
	}
	for _, uri := range []string{
		spec.SessionsResource("alice", "2023-01-01", "2023-12-31", 10, ""),
		"agentmem://alice/sessions?before=2023-12-31&after=2023-01-01",
		"agentmem://alice/sessions",
		spec.SessionResource("alice", "chat/2023:05"),
	} {
		text, err := c.ReadResource(ctx, uri)
		if err != nil || !strings.Contains(text, "alice") || strings.Contains(text, "defaultonly") {
			t.Errorf("%s: %v\n%s", uri, err, text)
		}
	}
}

// A resource read that fails on its URI or arguments is -32602 (invalid
// params), on a session or namespace that holds nothing -32002 (resource
// not found), never -32603: over HTTP and on the socket alike.
func TestResourceErrorCodes(t *testing.T) {
	ctx := context.Background()
	svc := testService(t)
	if _, err := svc.Remember(ctx, memory.RememberRequest{SessionID: "d1", Messages: []memory.Message{{Role: "user", Content: "hello"}}}); err != nil {
		t.Fatal(err)
	}
	s := server.New(svc, server.Options{})
	_, ts := newHTTP(t, s, server.HTTPOptions{})
	sock := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go server.ServeSocket(sctx, ln, s, nil)
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lines := bufio.NewReader(conn)
	fmt.Fprintf(conn, "%s\n", initBody)
	lines.ReadBytes('\n')
	session := initialize(t, ts.URL, nil)
	for uri, want := range map[string]int{
		"agentmem://default/sessions?foo=1":      -32602,
		"agentmem://default/sessions?limit=x":    -32602,
		"agentmem://default/sessions?limit=5000": -32602,
		"agentmem://default/sessions?limit=0":    -32602,
		"agentmem://bad%20name/sessions":         -32602,
		"agentmem://default/sessions/nosuch":     -32002,
		"agentmem://nobody/sessions":             -32002,
		"agentmem://default/sessions/d1/nosuch":  -32002,
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":%q}}`, uri)
		_, httpText := do(t, "POST", ts.URL, session, body, nil)
		fmt.Fprintf(conn, "%s\n", body)
		sockText, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		for transport, text := range map[string]string{"HTTP": httpText, "socket": string(sockText)} {
			if !strings.Contains(text, fmt.Sprintf(`"code":%d`, want)) {
				t.Errorf("%s over %s: %s, want code %d", uri, transport, text, want)
			}
		}
	}
}

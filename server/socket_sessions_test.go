package server_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/server"
	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// notes counts what one client was sent: log records of remember calls,
// and list changes.
type notes struct {
	mu            sync.Mutex
	logs, changed int
}

func (n *notes) watch(c *client.Client) {
	c.MCP().OnNotification(func(m mcp.JSONRPCNotification) {
		n.mu.Lock()
		defer n.mu.Unlock()
		switch m.Method {
		case "notifications/message":
			if d, _ := m.Params.AdditionalFields["data"].(map[string]any); d["tool"] == "remember" {
				n.logs++
			}
		case mcp.MethodNotificationResourcesListChanged:
			n.changed++
		}
	})
}

func (n *notes) get() (int, int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.logs, n.changed
}

// Three clients share one memory over the socket, and only B asks for
// debug logs. A's five remember calls log to A alone (which asked for
// none): B gets none of them; each client is told of each of the five
// list changes, once.
func TestSocketClientsHaveSessionsOfTheirOwn(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := testService(t)
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	go server.ServeSocket(ctx, ln, server.New(svc, server.Options{}), nil)
	var cs [3]*client.Client
	var ns [3]notes
	for i := range cs {
		if cs[i], err = client.Unix(ctx, ln.Addr().String()); err != nil {
			t.Fatal(err)
		}
		defer cs[i].Close()
		ns[i].watch(cs[i])
	}
	if err := cs[1].MCP().SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, _, err := cs[0].Remember(ctx, spec.RememberArgs{SessionID: "s", Messages: []spec.Message{{Role: "user", Content: fmt.Sprintf("note %d", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		_, a := ns[0].get()
		_, b := ns[1].get()
		_, c := ns[2].get()
		if a >= 1 && b >= 1 && c >= 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // anything sent astray arrives, and any later change told
	for i, name := range []string{"A", "B", "C"} {
		logs, changed := ns[i].get()
		if logs != 0 {
			t.Errorf("%s received %d log records of A's calls, want 0", name, logs)
		}
		if changed < 1 || changed > 5 { // the changes of 100 ms are told together
			t.Errorf("%s received %d list changes, want 1 to 5 (for 5 remembers)", name, changed)
		}
	}
	// B's own call logs to B, and to B alone
	if _, _, err := cs[1].Remember(ctx, spec.RememberArgs{SessionID: "s", Messages: []spec.Message{{Role: "user", Content: "B's note"}}}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if logs, _ := ns[1].get(); logs > 0 {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	for i, want := range []int{0, 1, 0} {
		if logs, _ := ns[i].get(); (logs > 0) != (want > 0) {
			t.Errorf("client %c received %d log records of B's call, want %d", 'A'+i, logs, want)
		}
	}
}

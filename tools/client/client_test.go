package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/tools/client"
	"agentmem/tools/client/clienttest"
)

// Clients made at once, each with its own name, introduce themselves by
// that name (and one without a name by the default), with no shared state
// between them: go test -race fails if they race.
func TestNamesPerClient(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	hooks := &mcpserver.Hooks{}
	hooks.AddBeforeInitialize(func(_ context.Context, _ any, req *mcp.InitializeRequest) {
		mu.Lock()
		seen[req.Params.ClientInfo.Name]++
		mu.Unlock()
	})
	s := mcpserver.NewMCPServer("test", "1", mcpserver.WithHooks(hooks))
	ctx := context.Background()
	// a protocol version with initialize, where the name is sent
	legacy := client.WithProtocol(mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	for i := range n {
		wg.Go(func() {
			c, err := client.InProcess(ctx, s, legacy, client.WithName(fmt.Sprintf("client-%d", i)))
			if err == nil {
				err = c.Close()
			}
			errs <- err
		})
	}
	wg.Go(func() {
		c, err := client.InProcess(ctx, s, legacy)
		if err == nil {
			err = c.Close()
		}
		errs <- err
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if name := fmt.Sprintf("client-%d", i); seen[name] != 1 {
			t.Errorf("%s introduced itself %d times, want 1 (seen %v)", name, seen[name], seen)
		}
	}
	if seen[client.DefaultName] != 1 {
		t.Errorf("a client without WithName: %q seen %d times, want 1 (seen %v)", client.DefaultName, seen[client.DefaultName], seen)
	}
}

// A recall that only counts keeps the fused order with reranker false,
// which a server built before rerankers refuses: NoReranker leaves it out
// there.
func TestNoRerankerOnlyWhereTaken(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		args []mcp.ToolOption
		want string
	}{
		{[]mcp.ToolOption{mcp.WithString("query"), mcp.WithBoolean("reranker")}, "false"},
		{[]mcp.ToolOption{mcp.WithString("query")}, "<nil>"},
	} {
		s := mcpserver.NewMCPServer("test", "1", mcpserver.WithToolCapabilities(false))
		s.AddTool(mcp.NewTool("recall", c.args...), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("x"), nil
		})
		cl, err := client.InProcess(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		got := "<nil>"
		if r := cl.NoReranker(ctx); r != nil {
			got = fmt.Sprint(*r)
		}
		if got != c.want {
			t.Errorf("a recall taking %d arguments: NoReranker %s, want %s", len(c.args), got, c.want)
		}
		cl.Close()
	}
}

// A resource that holds nothing is mcp.ErrResourceNotFound, as the server
// marks it, and its message is the server's alone (it names what it did
// not find), without the URI or the kind's name.
func TestResourceNotFoundKeepsItsKind(t *testing.T) {
	s := mcpserver.NewMCPServer("test", "1", mcpserver.WithResourceCapabilities(false, false))
	s.AddResource(mcp.NewResource("agentmem://nobody/sessions", "sessions"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, errors.New(`resource not found: namespace "nobody" not found`)
	})
	ctx := context.Background()
	c, err := client.InProcess(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.ReadResource(ctx, "agentmem://nobody/sessions")
	if !errors.Is(err, mcp.ErrResourceNotFound) || err.Error() != `namespace "nobody" not found` {
		t.Errorf("read = %v", err)
	}
}

// A server that takes the connection and never answers (stopped, hung)
// fails the handshake within the bound given, saying so, where the
// command waited for ever.
func TestInitWithin(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	clienttest.Silent(ln)
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = client.Conn(context.Background(), conn, client.WithInitWithin(200*time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "did not answer within 200ms") {
		t.Fatalf("a server that never answers: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the handshake gave up after %v", d)
	}
}

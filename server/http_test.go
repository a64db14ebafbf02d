package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/memory"
	"agentmem/memory/embed/fake"
	"agentmem/memory/embedded"
	"agentmem/server"
)

func httpServer(t *testing.T, token string) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	e := &fake.Embedder{Name: "t"}
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true, EmbedderID: e.ID(), Dims: e.Dims()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Embedder: e, Now: func() time.Time { return time.Date(2023, 5, 7, 14, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	h, err := server.NewHTTP(server.New(svc, server.Options{}), server.HTTPOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

func dial(t *testing.T, url string, headers map[string]string) (*client.Client, error) {
	c, err := client.NewStreamableHttpClient(url+server.Path, transport.WithHTTPHeaders(headers))
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func callText(ctx context.Context, c *client.Client, tool string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", b.String())
	}
	return b.String(), nil
}

// Eight clients at once, each remembering and recalling in its own session
// and in a shared one: nothing is lost, nothing is stored twice.
func TestHTTPConcurrentClients(t *testing.T) {
	ts := httpServer(t, "")
	ctx := context.Background()
	const clients, rounds = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dial(t, ts.URL, nil)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for r := range rounds {
				word := fmt.Sprintf("zebra%dx%d", i, r)
				if _, err := callText(ctx, c, "remember", map[string]any{
					"session_id": fmt.Sprintf("client-%d", i), "session_date": "2023-05-07",
					"messages": []any{map[string]any{"role": "user", "content": "note " + word}},
				}); err != nil {
					errs <- err
					return
				}
				// every client also appends the same turn to a shared session
				if _, err := callText(ctx, c, "remember", map[string]any{
					"session_id": "shared", "session_date": "2023-05-07",
					"messages": []any{map[string]any{"role": "user", "content": fmt.Sprintf("shared turn %d", r)}},
				}); err != nil {
					errs <- err
					return
				}
				text, err := callText(ctx, c, "recall", map[string]any{"query": word, "k": 1, "fusion": "text"})
				if err != nil {
					errs <- err
					return
				}
				if !strings.Contains(text, word) {
					errs <- fmt.Errorf("client %d round %d recalled %q, want %s", i, r, text, word)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c, err := dial(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	text, err := callText(ctx, c, "recall", map[string]any{"query": "shared turn", "session_id": "shared", "k": 100, "fusion": "text"})
	if err != nil {
		t.Fatal(err)
	}
	// the shared session holds each distinct turn, and appends by other
	// clients did not collide on turn numbers
	if n := strings.Count(text, "[2023-05-07 Sun · session shared"); n != rounds {
		t.Errorf("shared session has %d turns, want exactly %d:\n%s", n, rounds, text)
	}
}

func TestHTTPBearerToken(t *testing.T) {
	ts := httpServer(t, "s3cret")
	if _, err := dial(t, ts.URL, nil); err == nil {
		t.Fatal("a client without the token was let in")
	}
	if _, err := dial(t, ts.URL, map[string]string{"Authorization": "Bearer wrong"}); err == nil {
		t.Fatal("a client with a wrong token was let in")
	}
	c, err := dial(t, ts.URL, map[string]string{"Authorization": "Bearer s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := callText(context.Background(), c, "today", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
}

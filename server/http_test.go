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

	"agentmem/tools/client"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
	"agentmem/server"
)

func httpServer(t *testing.T, token string) *httptest.Server {
	t.Helper()
	h, err := server.NewHTTP(server.New(testService(t), server.Options{}), server.HTTPOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// testService is a memory service on an embedded store in a temporary
// directory, with the fake embedder and a fixed clock.
func testService(t *testing.T) *memory.Service {
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
	t.Cleanup(func() { svc.Close() })
	return svc
}

func dial(t *testing.T, url string, headers map[string]string) (*client.Client, error) {
	return client.HTTP(context.Background(), url+server.Path, headers)
}

func callText(ctx context.Context, c *client.Client, tool string, args map[string]any) (string, error) {
	text, _, err := c.Call(ctx, tool, args)
	return text, err
}

// Thirty-two clients at once, each remembering and recalling in its own session
// and in a shared one: nothing is lost, nothing is stored twice.
func TestHTTPConcurrentClients(t *testing.T) {
	ts := httpServer(t, "")
	ctx := context.Background()
	const clients, rounds = 32, 5
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
				// every client also appends the same turn, with the same message id,
				// to a shared session
				if _, err := callText(ctx, c, "remember", map[string]any{
					"session_id": "shared", "session_date": "2023-05-07",
					"messages": []any{map[string]any{"role": "user", "content": fmt.Sprintf("shared turn %d", r), "id": fmt.Sprintf("shared-%d", r)}},
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
	if n := strings.Count(text, "shared turn "); n != rounds {
		t.Errorf("shared session has %d turns, want exactly %d:\n%s", n, rounds, text)
	}
	if !t.Failed() {
		t.Logf("%d clients, %d calls each (%d in all), 0 errors, nothing lost or stored twice", clients, 3*rounds, 3*rounds*clients)
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

package backend

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentmem/cmd/internal/config"
	"agentmem/memory"
)

func TestOpenNoneAndClock(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Base: config.Base{DataDir: dir, Namespace: "me", Now: "2023-05-07 14:00", Timezone: "Europe/Paris"}, Embedder: "none", Fusion: "rrf"}
	e, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Embedder != nil {
		t.Errorf("embedder = %v, want none", e.Embedder)
	}
	now := e.Service.Now()
	if now.Location().String() != "Europe/Paris" || now.Hour() != 14 || now.Day() != 7 {
		t.Errorf("now = %v", now)
	}
	res, err := e.Service.Remember(context.Background(), memory.RememberRequest{Messages: []memory.Message{{Role: "user", Content: "hello"}}})
	if err != nil || res.Namespace != "me" {
		t.Fatalf("remember = %+v, %v", res, err)
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Base: config.Base{DataDir: dir, Timezone: "Mars/Olympus"}}, "timezone"},
		{Config{Base: config.Base{DataDir: dir, Now: "when pigs fly"}}, "now"},
		{Config{Base: config.Base{DataDir: dir}, Embedder: "magic"}, "unknown"},
		{Config{Base: config.Base{DataDir: dir, Namespace: "no spaces"}}, "namespace"},
	} {
		if _, err := Open(context.Background(), c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want one about %s", c.cfg, err, c.want)
		}
	}
}

// The OpenAI-compatible embedder is wired through the cache: the second
// identical remember makes no request.
func TestOpenAIEmbedderThroughCache(t *testing.T) {
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := range req.Input {
			data = append(data, item{"embedding", i, []float32{1, float32(len(req.Input[i])), 0}})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "m"})
	}))
	defer srv.Close()
	cfg := Config{Base: config.Base{DataDir: t.TempDir()}, Embedder: "openai", OpenAI: OpenAIConfig{BaseURL: srv.URL, Model: "m"}}
	e, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if e.Embedder.Dims() != 3 {
		t.Fatalf("dims = %d", e.Embedder.Dims())
	}
	req := memory.RememberRequest{SessionID: "a", Messages: []memory.Message{{Role: "user", Content: "a cached turn"}}}
	if _, err := e.Service.Remember(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	before := calls
	req.SessionID = "b"
	if _, err := e.Service.Remember(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if calls != before {
		t.Errorf("re-embedding known text made %d requests", calls-before)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "embeddings.db")); err != nil {
		t.Errorf("no embedding cache in the data dir: %v", err)
	}
}

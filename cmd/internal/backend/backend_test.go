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

// A reranker endpoint is probed at open, orders the recalls of the
// service and of every server ServerAt makes, and a dead one fails the
// open naming it.
func TestRerankerEndpoint(t *testing.T) {
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		var req struct {
			Documents []string `json:"documents"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type result struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		}
		var out []result
		for i, d := range req.Documents {
			out = append(out, result{i, float64(strings.Count(d, "violin"))})
		}
		json.NewEncoder(w).Encode(map[string]any{"results": out})
	}))
	defer srv.Close()
	cfg := Config{Base: config.Base{DataDir: t.TempDir()}, Embedder: "none", Fusion: "rrf",
		Reranker: RerankerConfig{URL: srv.URL + "/v1/rerank", Model: "tiny", API: "cohere", Candidates: 3}}
	e, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if calls != 1 {
		t.Errorf("%d calls at open, want the probe", calls)
	}
	if _, err := e.Service.Remember(context.Background(), memory.RememberRequest{SessionID: "s", Messages: []memory.Message{
		{Role: "user", Content: "music lessons: piano"}, {Role: "user", Content: "music lessons, violin, violin and more violin, the music of it"},
	}}); err != nil {
		t.Fatal(err)
	}
	res, err := e.Service.Recall(context.Background(), memory.RecallRequest{Query: "music lessons", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reranker != "rerank:tiny@"+srv.URL+"/v1/rerank" || len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Memory.Text, "violin") {
		t.Errorf("reranker %q, hits %v", res.Reranker, res.Hits)
	}
	if _, err := e.ServerAt(cfg)(e.Service.Now()); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	cfg.DataDir = t.TempDir()
	if _, err := Open(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), "reranker") || !strings.Contains(err.Error(), srv.URL) {
		t.Errorf("a dead endpoint: %v, want an error naming the reranker and its URL", err)
	}
	cfg.Reranker.Candidates = 101
	if _, err := Open(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), "--reranker-candidates") {
		t.Errorf("101 candidates: %v", err)
	}
}

package backend

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentmem/cmd/internal/config"
	"agentmem/memory"
	"agentmem/memory/store/embedded/maxscore"
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
		{Config{Base: config.Base{DataDir: dir}, Embedder: "none", TextCache: -1}, "--text-cache: must be between 0 and 8796093022207 MB, got -1"},
		{Config{Base: config.Base{DataDir: dir}, Embedder: "none", TextCache: 1 << 43}, "--text-cache: must be between 0 and 8796093022207 MB, got 8796093022208"},
	} {
		if _, err := Open(context.Background(), c.cfg, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want one about %s", c.cfg, err, c.want)
		}
	}
}

// Check finds every setting that can never work, naming its flag, with
// nothing opened: serve fails at start on it, not in every call.
func TestCheck(t *testing.T) {
	ok := Config{Base: config.Base{Namespace: "default"}, TextCache: 512, Reranker: RerankerConfig{Timeout: time.Second}}
	if err := ok.Check(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	empty := ok
	empty.Namespace = "" // AGENTMEM_NAMESPACE= : the default namespace, as before
	if err := empty.Check(); err != nil {
		t.Errorf("an empty --namespace: %v, want the default", err)
	}
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Namespace = "a%b" }, `--namespace: "a%b" has the character '%'`},
		{func(c *Config) { c.TextCache = -1 }, "--text-cache: must be between 0 and"},
		{func(c *Config) { c.Reranker.URL = "ftp://x" }, `--reranker-url: reranker url "ftp://x": must be an http:// or https:// URL`},
		{func(c *Config) { c.Reranker.URL = "localhost:8080/rerank" }, "--reranker-url: "},
		{func(c *Config) { c.Reranker.URL, c.Reranker.Timeout = "http://x", 0 }, "--reranker-timeout: must be more than 0"},
		{func(c *Config) { c.Reranker.Candidates = 101 }, "--reranker-candidates: must be between 1 and 100"},
	} {
		bad := ok
		c.set(&bad)
		if err := bad.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", bad, err, c.want)
		}
	}
}

// --text-cache reaches the text side: in MB, 0 for none.
func TestTextCache(t *testing.T) {
	defer maxscore.SetDecodedBytes(maxscore.DecodedBytes())
	for _, c := range []struct {
		mb   int
		want int64
	}{{64, 64 << 20}, {0, 0}, {512, 512 << 20}} {
		cfg := Config{Base: config.Base{DataDir: t.TempDir()}, Embedder: "none", TextCache: c.mb}
		e, err := Open(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Close()
		if maxscore.DecodedBytes() != c.want {
			t.Errorf("--text-cache %d: %d bytes of decoded postings, want %d", c.mb, maxscore.DecodedBytes(), c.want)
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

// A reranker endpoint orders the recalls of the service and of every
// server ServerAt makes; one that does not answer leaves the memory
// working (its probe says why), and bad settings fail the open naming
// their flag.
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
		Reranker: RerankerConfig{URL: srv.URL + "/v1/rerank", Model: "tiny", API: "cohere", Candidates: 3, Timeout: 5 * time.Second}}
	e, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if calls != 0 {
		t.Errorf("%d calls at open, want none", calls)
	}
	if err := e.ProbeReranker(context.Background(), slog.New(slog.DiscardHandler)); err != nil || calls != 1 {
		t.Errorf("probe: %v, %d calls", err, calls)
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
	dead, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatalf("a dead endpoint failed the open: %v", err)
	}
	defer dead.Close()
	if _, err := dead.Service.Remember(context.Background(), memory.RememberRequest{SessionID: "s", Messages: []memory.Message{{Role: "user", Content: "music"}}}); err != nil {
		t.Errorf("remember with a dead reranker: %v", err)
	}
	if err := dead.ProbeReranker(context.Background(), slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), srv.URL) {
		t.Errorf("probe of a dead endpoint: %v, want its URL", err)
	}
	if res, err := dead.Service.Recall(context.Background(), memory.RecallRequest{Query: "music", K: 1}); err != nil || !strings.Contains(res.RerankError, srv.URL) || len(res.Hits) != 1 {
		t.Errorf("recall with a dead reranker: %v, %+v", err, res)
	}
	for _, c := range []struct {
		set  func(*RerankerConfig)
		want string
	}{
		{func(r *RerankerConfig) { r.Candidates = 101 }, "--reranker-candidates"},
		{func(r *RerankerConfig) { r.Timeout = 0 }, "--reranker-timeout"},
		{func(r *RerankerConfig) { r.URL = "localhost:8080" }, "http:// or https://"},
	} {
		bad := cfg
		bad.DataDir = t.TempDir()
		c.set(&bad.Reranker)
		if _, err := Open(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", bad.Reranker, err, c.want)
		}
	}
}

type recipeStore string

func (r recipeStore) Recipe() string { return string(r) }

// A store whose memories were embedded by an earlier recipe (or one that
// recorded none: before recipes) is named at open, with what to run; one
// of today's recipe, or a store that keeps no recipe, is not.
func TestWarnRecipe(t *testing.T) {
	for _, c := range []struct {
		st   any
		want bool
	}{{recipeStore(memory.Recipe), false}, {recipeStore(""), true}, {recipeStore("older"), true}, {struct{}{}, false}} {
		var buf strings.Builder
		warnRecipe(c.st, slog.New(slog.NewTextHandler(&buf, nil)))
		if got := strings.Contains(buf.String(), "agentmem reindex"); got != c.want {
			t.Errorf("%#v: warned %v (%q), want %v", c.st, got, buf.String(), c.want)
		}
	}
}

package endpoint

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// server answers every request with answer(body), recording the requests.
type server struct {
	*httptest.Server
	calls atomic.Int32
	last  atomic.Value // map[string]any: the last request's body
	auth  atomic.Value // string: its Authorization header
}

func newServer(t *testing.T, answer func(req map[string]any, call int) (int, string)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := int(s.calls.Add(1))
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		s.last.Store(req)
		s.auth.Store(r.Header.Get("Authorization"))
		code, body := answer(req, call)
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

// byLength scores each document by its length, answering in the
// Cohere shape with the results sorted best first, as Cohere does.
func byLength(req map[string]any, _ int) (int, string) {
	docs, _ := req["documents"].([]any)
	var parts []string
	for i := len(docs) - 1; i >= 0; i-- {
		parts = append(parts, fmt.Sprintf(`{"index": %d, "relevance_score": %d}`, i, len(docs[i].(string))))
	}
	return 200, `{"id": "x", "results": [` + strings.Join(parts, ",") + `]}`
}

func TestCohereShape(t *testing.T) {
	s := newServer(t, byLength)
	r, err := New(Config{URL: s.URL + "/v1/rerank", Model: "bge-reranker", APIKey: "k3y"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := r.Rerank(context.Background(), "q", []string{"a", "bbb", "bb"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[1 3 2]" {
		t.Errorf("scores %v, want [1 3 2]: in the documents' order, whatever order the answer has", got)
	}
	req := s.last.Load().(map[string]any)
	if req["model"] != "bge-reranker" || req["query"] != "q" || len(req["documents"].([]any)) != 3 {
		t.Errorf("request %v", req)
	}
	if a := s.auth.Load(); a != "Bearer k3y" {
		t.Errorf("Authorization %q", a)
	}
	if s.calls.Load() != 2 {
		t.Errorf("%d calls, want the probe and one", s.calls.Load())
	}
}

func TestOtherShapes(t *testing.T) {
	t.Run("voyage data", func(t *testing.T) {
		s := newServer(t, func(req map[string]any, _ int) (int, string) {
			n := len(req["documents"].([]any))
			var parts []string
			for i := range n {
				parts = append(parts, fmt.Sprintf(`{"index": %d, "relevance_score": %d.5}`, i, i))
			}
			return 200, `{"object": "list", "data": [` + strings.Join(parts, ",") + `]}`
		})
		r, err := New(Config{URL: s.URL})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Rerank(context.Background(), "q", []string{"x", "y"})
		if err != nil || fmt.Sprint(got) != "[0.5 1.5]" {
			t.Errorf("scores %v, %v", got, err)
		}
		if _, ok := s.last.Load().(map[string]any)["model"]; ok {
			t.Error("an empty model was sent")
		}
	})
	t.Run("tei", func(t *testing.T) {
		s := newServer(t, func(req map[string]any, _ int) (int, string) {
			if _, ok := req["texts"]; !ok {
				return 422, `{"error": "missing field texts"}`
			}
			if req["truncate"] != true {
				return 413, `{"error": "input too long"}` // as TEI answers a long pair without truncate
			}
			n := len(req["texts"].([]any))
			var parts []string
			for i := n - 1; i >= 0; i-- {
				parts = append(parts, fmt.Sprintf(`{"index": %d, "score": -%d}`, i, i+1))
			}
			return 200, `[` + strings.Join(parts, ",") + `]`
		})
		r, err := New(Config{URL: s.URL + "/rerank", API: TEI})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Rerank(context.Background(), "q", []string{"x", "y", "z"})
		if err != nil || fmt.Sprint(got) != "[-1 -2 -3]" {
			t.Errorf("scores %v, %v", got, err)
		}
	})
}

func TestBadAnswers(t *testing.T) {
	for name, c := range map[string]struct {
		code int
		body string
		want string
	}{
		"missing document":    {200, `{"results": [{"index": 0, "relevance_score": 1}]}`, "sent 2 documents, got 1 scores"},
		"duplicate index":     {200, `{"results": [{"index": 0, "relevance_score": 1}, {"index": 0, "relevance_score": 2}]}`, "duplicate"},
		"index out of range":  {200, `{"results": [{"index": 0, "relevance_score": 1}, {"index": 2, "relevance_score": 2}]}`, "out-of-range"},
		"no index":            {200, `{"results": [{"index": 0, "relevance_score": 1}, {"relevance_score": 2}]}`, "missing"},
		"null score":          {200, `{"results": [{"index": 0, "relevance_score": 1}, {"index": 1, "relevance_score": null}]}`, "document 1: no finite"},
		"not json":            {200, `<html>proxy error</html>`, "not JSON"},
		"client error":        {400, `{"message": "model not found"}`, "status 400: {\"message\": \"model not found\"}"},
		"empty server error":  {503, ``, "status 503: (no body)"},
		"results of no shape": {200, `{"scores": [1, 2]}`, `the answer has no results: {"scores": [1, 2]}`},
		"too many scores":     {200, `{"results": [{"index": 0, "relevance_score": 1}, {"index": 1, "relevance_score": 1}, {"index": 2, "relevance_score": 2}]}`, "sent 2 documents, got 3 scores"},
	} {
		t.Run(name, func(t *testing.T) {
			s := newServer(t, func(map[string]any, int) (int, string) { return c.code, c.body })
			r, err := New(Config{URL: s.URL + "/rerank", MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Rerank(context.Background(), "q", []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), s.URL+"/rerank") {
				t.Errorf("error %v, want one naming the endpoint and %q", err, c.want)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	s := newServer(t, func(req map[string]any, call int) (int, string) {
		if call == 1 {
			return 503, "loading model"
		}
		return byLength(req, call)
	})
	r, err := New(Config{URL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.Rerank(context.Background(), "q", []string{"ab"}); err != nil || got[0] != 2 {
		t.Errorf("a 503 then an answer: %v, %v", got, err)
	}
	s.calls.Store(0)
	bad := newServer(t, func(map[string]any, int) (int, string) { return 400, "no" })
	r, _ = New(Config{URL: bad.URL, MaxAttempts: 5})
	if _, err := r.Rerank(context.Background(), "q", []string{"ab"}); err == nil || bad.calls.Load() != 1 {
		t.Errorf("a 400 was tried %d times (%v), want once", bad.calls.Load(), err)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer s.Close()
	defer close(release)
	r, err := New(Config{URL: s.URL, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = r.Rerank(context.Background(), "q", []string{"a"})
	if err == nil || !strings.Contains(err.Error(), s.URL) || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("error %v, want the endpoint and its time out", err)
	}
	// generous: only that the bound holds, not how fast
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v with a 50 ms timeout", d)
	}
}

func TestConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "http://h/rerank", Timeout: -time.Second}, "negative timeout"},
		{Config{}, `reranker url ""`},
		{Config{URL: "localhost:8080/rerank"}, "http:// or https://"},
		{Config{URL: "ftp://host/rerank"}, "http:// or https://"},
		{Config{URL: "http://h/rerank", API: "openai"}, `reranker api "openai"`},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
	r, err := New(Config{URL: "https://user:secret@host.example/v2/rerank", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if id := r.ID(); strings.Contains(id, "secret") || id != "rerank:m@https://host.example/v2/rerank" {
		t.Errorf("ID %q", id)
	}
	// a dead endpoint: New sends nothing, Probe names it
	s := httptest.NewServer(http.NotFoundHandler())
	s.Close()
	r, err = New(Config{URL: s.URL + "/rerank", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Probe(context.Background()); err == nil || !strings.Contains(err.Error(), s.URL) {
		t.Errorf("dead endpoint: %v", err)
	}
}

// More documents than a batch holds go in requests side by side, each
// within the server's limit, and the scores come back in order.
func TestBatches(t *testing.T) {
	var most atomic.Int32
	s := newServer(t, func(req map[string]any, call int) (int, string) {
		texts := req["texts"].([]any)
		if len(texts) > 32 {
			return 413, `{"error": "batch size 70 > maximum allowed batch size 32"}`
		}
		for n := int32(len(texts)); most.Load() < n; {
			most.CompareAndSwap(most.Load(), n)
		}
		var parts []string
		for i, d := range texts {
			parts = append(parts, fmt.Sprintf(`{"index": %d, "score": %s}`, i, strings.TrimPrefix(d.(string), "doc ")))
		}
		return 200, "[" + strings.Join(parts, ",") + "]"
	})
	r, err := New(Config{URL: s.URL, API: TEI})
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for i := range 70 {
		docs = append(docs, fmt.Sprint("doc ", i))
	}
	got, err := r.Rerank(context.Background(), "q", docs)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if g != float64(i) {
			t.Fatalf("score %d is %v: the batches' scores out of order", i, g)
		}
	}
	if s.calls.Load() != 3 || most.Load() != 32 {
		t.Errorf("%d requests, the largest of %d documents; want 3, of 32 at most", s.calls.Load(), most.Load())
	}
}

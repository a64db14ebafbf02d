package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fake is an OpenAI-compatible embeddings server. It answers each request
// with the next status in script (200 once the script runs out), returns
// the data in reverse index order to check that the client reorders it,
// and embeds a text as rawVec(text).
type fake struct {
	mu      sync.Mutex
	script  []int
	header  http.Header // sent with scripted failures
	reqs    []request
	auth    []string
	dims    int // vector length returned; 3 if zero
	mutate  func(data []item) []item
	blockOn chan struct{} // if set, requests wait for it or their cancellation
}

type request struct {
	Input      []string `json:"input"`
	Model      string   `json:"model"`
	Dimensions int      `json:"dimensions"`
}

type item struct {
	Object    string    `json:"object"`
	Embedding []float32 `json:"embedding"`
	Index     int       `json:"index"`
}

func rawVec(text string, dims int) []float32 {
	h := fnv.New32a()
	h.Write([]byte(text))
	s := h.Sum32()
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32((s>>(i*5))&31) + 1
	}
	return v
}

func unit(v []float32) []float32 {
	out := append([]float32(nil), v...)
	if err := normalize(out); err != nil {
		panic(err)
	}
	return out
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if f.blockOn != nil {
		select {
		case <-f.blockOn:
		case <-r.Context().Done():
			return
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	status := http.StatusOK
	if len(f.script) > 0 {
		status, f.script = f.script[0], f.script[1:]
	}
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	if status != http.StatusOK {
		for k, vs := range f.header {
			w.Header()[k] = vs
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"scripted failure %d","type":"test"}}`, status)
		return
	}
	dims := f.dims
	if dims == 0 {
		dims = 3
	}
	data := make([]item, 0, len(req.Input))
	for i := len(req.Input) - 1; i >= 0; i-- {
		data = append(data, item{"embedding", rawVec(req.Input[i], dims), i})
	}
	if f.mutate != nil {
		data = f.mutate(data)
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
}

func (f *fake) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

func (f *fake) reset(script ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs, f.auth, f.script = nil, nil, script
}

// start serves f and returns a config pointing at it with fast retries.
func start(t *testing.T, f *fake) Config {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return Config{
		BaseURL:    srv.URL + "/v1",
		Model:      "test-embed",
		Backoff:    time.Millisecond,
		MaxBackoff: 5 * time.Millisecond,
	}
}

func newEmbedder(t *testing.T, f *fake, edit func(*Config)) *Embedder {
	t.Helper()
	cfg := start(t, f)
	if edit != nil {
		edit(&cfg)
	}
	e, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.reset()
	return e
}

func TestNew(t *testing.T) {
	tests := []struct {
		name     string
		dims     int // configured
		served   int // returned by the server
		wantID   string
		wantDims int
		wantErr  string
	}{
		{"learns dims", 0, 5, "openai:test-embed", 5, ""},
		{"configured dims", 4, 4, "openai:test-embed@4", 4, ""},
		{"server ignores dims", 4, 6, "", 0, "returned 6 dims, configured 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{dims: tt.served}
			cfg := start(t, f)
			cfg.Dims = tt.dims
			e, err := New(t.Context(), cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New error = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if e.ID() != tt.wantID || e.Dims() != tt.wantDims {
				t.Errorf("ID, Dims = %q, %d; want %q, %d", e.ID(), e.Dims(), tt.wantID, tt.wantDims)
			}
			reqs := f.requests()
			if len(reqs) != 1 || reqs[0].Dimensions != tt.dims || reqs[0].Model != "test-embed" {
				t.Errorf("probe requests = %+v, want one with model test-embed, dimensions %d", reqs, tt.dims)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(t.Context(), Config{}); err == nil {
		t.Error("New without a model succeeded")
	}
	f := &fake{script: []int{401}}
	cfg := start(t, f)
	_, err := New(t.Context(), cfg)
	if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "scripted failure") {
		t.Errorf("New with a rejected key: error = %v, want status and server message", err)
	}
}

func TestAPIKey(t *testing.T) {
	for _, key := range []string{"", "sk-test"} {
		f := &fake{}
		cfg := start(t, f)
		cfg.APIKey = key
		if _, err := New(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
		want := ""
		if key != "" {
			want = "Bearer " + key
		}
		if f.auth[0] != want {
			t.Errorf("key %q: Authorization = %q, want %q", key, f.auth[0], want)
		}
	}
}

func TestBatching(t *testing.T) {
	tests := []struct {
		n, batch, wantReqs int
	}{
		{0, 4, 0},
		{1, 4, 1},
		{4, 4, 1},
		{5, 4, 2},
		{11, 4, 3},
		{200, 0, 3}, // default batch size 96
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d by %d", tt.n, tt.batch), func(t *testing.T) {
			f := &fake{}
			e := newEmbedder(t, f, func(c *Config) { c.BatchSize = tt.batch })
			texts := make([]string, tt.n)
			for i := range texts {
				texts[i] = fmt.Sprintf("memory number %d", i)
			}
			vs, err := e.Embed(t.Context(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != tt.n {
				t.Fatalf("got %d vectors, want %d", len(vs), tt.n)
			}
			for i, v := range vs {
				if !near(v, unit(rawVec(texts[i], 3))) {
					t.Fatalf("vector %d = %v, want %v (order lost?)", i, v, unit(rawVec(texts[i], 3)))
				}
			}
			reqs := f.requests()
			if len(reqs) != tt.wantReqs {
				t.Fatalf("%d requests, want %d", len(reqs), tt.wantReqs)
			}
			var sent []string
			for _, r := range reqs {
				sent = append(sent, r.Input...)
			}
			if strings.Join(sent, "|") != strings.Join(texts, "|") {
				t.Errorf("inputs sent out of order or incomplete")
			}
		})
	}
}

func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func TestNormalised(t *testing.T) {
	f := &fake{dims: 16}
	e := newEmbedder(t, f, nil)
	vs, err := e.Embed(t.Context(), []string{"a", "Caroline researched adoption agencies", strings.Repeat("x", 5000)})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		var ss float64
		for _, x := range v {
			ss += float64(x) * float64(x)
		}
		if math.Abs(ss-1) > 1e-5 {
			t.Errorf("vector %d has squared norm %v, want 1", i, ss)
		}
	}
	// A zero vector has no direction; it must stay zero, not become NaN.
	z := []float32{0, 0, 0}
	if err := normalize(z); err != nil || z[0] != 0 || z[1] != 0 || z[2] != 0 {
		t.Errorf("normalize(zero) = %v, %v", z, err)
	}
	if err := normalize([]float32{float32(math.Inf(1)), 1}); err == nil {
		t.Error("normalize accepted an infinite value")
	}
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name     string
		script   []int
		wantReqs int
		wantErr  string // empty for success
	}{
		{"429 then ok", []int{429}, 2, ""},
		{"503 429 500 then ok", []int{503, 429, 500}, 4, ""},
		{"400 not retried", []int{400}, 1, "HTTP 400 Bad Request: scripted failure 400"},
		{"404 not retried", []int{404}, 1, "HTTP 404"},
		{"422 not retried", []int{422}, 1, "HTTP 422"},
		{"bounded attempts", []int{503, 503, 503, 503, 503}, 4, "HTTP 503 Service Unavailable: scripted failure 503 (gave up after 4 attempts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			e := newEmbedder(t, f, func(c *Config) { c.MaxAttempts = 4 })
			f.reset(tt.script...)
			vs, err := e.Embed(t.Context(), []string{"one", "two"})
			if got := len(f.requests()); got != tt.wantReqs {
				t.Errorf("%d requests, want %d", got, tt.wantReqs)
			}
			if tt.wantErr == "" {
				if err != nil || len(vs) != 2 {
					t.Fatalf("Embed = %d vectors, %v; want 2, nil", len(vs), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Embed error = %v, want it to contain %q", err, tt.wantErr)
			}
			var se *StatusError
			if !errors.As(err, &se) || se.Code != tt.script[tt.wantReqs-1] {
				t.Errorf("error %v does not carry the last HTTP status as *StatusError", err)
			}
		})
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	f := &fake{header: http.Header{"Retry-After-Ms": {"80"}}}
	e := newEmbedder(t, f, func(c *Config) { c.MaxBackoff = time.Second })
	f.reset(429)
	begin := time.Now()
	if _, err := e.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	// Backoff alone would wait about a millisecond.
	if d := time.Since(begin); d < 80*time.Millisecond {
		t.Errorf("retried after %v, want at least the 80ms the server asked for", d)
	}
}

func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2025, 5, 8, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"Thu, 08 May 2025 12:00:07 GMT"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"Thu, 08 May 2025 11:00:00 GMT"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.h, now); got != tt.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestDelay(t *testing.T) {
	e := &Embedder{cfg: Config{Backoff: 100 * time.Millisecond, MaxBackoff: time.Second}}
	for attempt, base := range map[int]time.Duration{1: 100, 2: 200, 3: 400, 4: 800, 5: 1000, 40: 1000} {
		base *= time.Millisecond
		for range 50 {
			if d := e.delay(attempt, 0); d < base/2 || d > base {
				t.Fatalf("delay(%d) = %v, want in [%v, %v]", attempt, d, base/2, base)
			}
		}
	}
	if d := e.delay(1, 700*time.Millisecond); d != 700*time.Millisecond {
		t.Errorf("delay with Retry-After 700ms = %v", d)
	}
	if d := e.delay(1, time.Hour); d != time.Second {
		t.Errorf("delay with Retry-After 1h = %v, want capped at MaxBackoff", d)
	}
}

func TestBadResponses(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func([]item) []item
		wantErr string
	}{
		{"too few", func(d []item) []item { return d[1:] }, "sent 2 inputs, got 1 vectors"},
		{"duplicate index", func(d []item) []item { d[1].Index = d[0].Index; return d }, "index"},
		{"index out of range", func(d []item) []item { d[0].Index = 7; return d }, "index 7"},
		{"ragged dims", func(d []item) []item { d[0].Embedding = d[0].Embedding[:2]; return d }, "got 2 dims, want 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{}
			e := newEmbedder(t, f, nil)
			f.mutate = tt.mutate
			_, err := e.Embed(t.Context(), []string{"a", "b"})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
			if n := len(f.requests()); n != 1 {
				t.Errorf("%d requests, want 1: a malformed answer is not retried", n)
			}
		})
	}
}

func TestMaxBytes(t *testing.T) {
	long := strings.Repeat("é", 30) // 60 bytes
	tests := []struct {
		max  int
		want string
	}{
		{-1, long},
		{100, long},
		{60, long},
		{59, strings.Repeat("é", 29)}, // not half a character
		{10, strings.Repeat("é", 5)},
	}
	for _, tt := range tests {
		f := &fake{}
		e := newEmbedder(t, f, func(c *Config) { c.MaxBytes = tt.max })
		texts := []string{"short", long}
		if _, err := e.Embed(t.Context(), texts); err != nil {
			t.Fatal(err)
		}
		if got := f.requests()[0].Input; got[0] != "short" || got[1] != tt.want {
			t.Errorf("MaxBytes %d: sent %q, want %q", tt.max, got[1], tt.want)
		}
		if texts[1] != long {
			t.Errorf("MaxBytes %d: caller's slice modified", tt.max)
		}
	}
}

func TestCancel(t *testing.T) {
	t.Run("in flight", func(t *testing.T) {
		f := &fake{}
		e := newEmbedder(t, f, nil)
		f.blockOn = make(chan struct{})
		defer close(f.blockOn)
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		_, err := e.Embed(ctx, []string{"x"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("error = %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("waiting to retry", func(t *testing.T) {
		f := &fake{}
		e := newEmbedder(t, f, func(c *Config) { c.Backoff, c.MaxBackoff = time.Hour, time.Hour })
		f.reset(503)
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(30*time.Millisecond, cancel)
		begin := time.Now()
		_, err := e.Embed(ctx, []string{"x"})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "503") {
			t.Fatalf("error = %v, want context.Canceled mentioning the last 503", err)
		}
		if d := time.Since(begin); d > 5*time.Second {
			t.Errorf("cancellation took %v", d)
		}
	})
	t.Run("attempt timeout retried", func(t *testing.T) {
		f := &fake{}
		e := newEmbedder(t, f, func(c *Config) { c.Timeout = 20 * time.Millisecond; c.MaxAttempts = 2 })
		f.blockOn = make(chan struct{})
		defer close(f.blockOn)
		_, err := e.Embed(t.Context(), []string{"x"})
		if err == nil || !strings.Contains(err.Error(), "gave up after 2 attempts") {
			t.Fatalf("error = %v, want two timed-out attempts", err)
		}
	})
}

// Package openai implements embedder.Embedder over any OpenAI-compatible
// embeddings endpoint: OpenAI itself, or a local server such as Ollama
// (http://localhost:11434/v1), vLLM or LM Studio.
package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	goopenai "github.com/sashabaranov/go-openai"

	"agentmem/memory/embedder"
)

// Defaults for the zero values of Config.
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultBatchSize   = 96
	DefaultTimeout     = 60 * time.Second
	DefaultMaxAttempts = 5
	DefaultBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff  = 30 * time.Second
	DefaultMaxBytes    = 20000
)

// probeText is embedded once by New to learn (or check) the vector length.
const probeText = "dimension probe"

// Config configures an Embedder. Only Model is required.
type Config struct {
	// BaseURL is the API root, including the version path, e.g.
	// "http://localhost:11434/v1". Empty means DefaultBaseURL.
	BaseURL string
	// Model is the embedding model name, e.g. "text-embedding-3-small".
	Model string
	// APIKey is sent as a bearer token; leave empty for local servers
	// that need none.
	APIKey string
	// Dims, if positive, is sent as the request's "dimensions" parameter
	// and every returned vector must have that length. Zero means the
	// model's native length, learnt from the probe in New.
	Dims int
	// BatchSize is the most inputs sent in one request (DefaultBatchSize
	// if zero).
	BatchSize int
	// Timeout bounds each HTTP attempt, not the whole Embed call; the
	// caller's context bounds that (DefaultTimeout if zero).
	Timeout time.Duration
	// MaxAttempts bounds the tries per request, counting the first
	// (DefaultMaxAttempts if zero).
	MaxAttempts int
	// Backoff is the delay before the first retry; it doubles on each
	// further retry up to MaxBackoff, with jitter. A Retry-After header
	// from the server, if longer, is honoured instead (up to MaxBackoff).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// MaxBytes cuts longer inputs (at a character boundary) before they
	// are sent: OpenAI rejects inputs over the model's token window
	// instead of truncating them, which would fail a whole batch over one
	// long memory. The default, DefaultMaxBytes, stays under 8k tokens for
	// most text; negative means never cut.
	MaxBytes int
	// HTTPClient, if set, sends the requests (proxies, custom TLS).
	HTTPClient *http.Client
}

// Embedder embeds text through an OpenAI-compatible /embeddings endpoint.
// It is immutable after New and safe for concurrent use.
type Embedder struct {
	c    *goopenai.Client
	cfg  Config
	id   string
	dims int
}

var _ embedder.Embedder = (*Embedder)(nil)

// New returns an Embedder for cfg. It embeds one short probe text so that
// a wrong URL, key or model fails here rather than on the first stored
// memory, and so that Dims is known before any call.
func New(ctx context.Context, cfg Config) (*Embedder, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("openai embedder: no model configured")
	}
	if cfg.Dims < 0 || cfg.BatchSize < 0 || cfg.MaxAttempts < 0 || cfg.Timeout < 0 ||
		cfg.Backoff < 0 || cfg.MaxBackoff < 0 {
		return nil, errors.New("openai embedder: negative value in config")
	}
	cfg.BaseURL = cmp.Or(cfg.BaseURL, DefaultBaseURL)
	cfg.BatchSize = cmp.Or(cfg.BatchSize, DefaultBatchSize)
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.Backoff = cmp.Or(cfg.Backoff, DefaultBackoff)
	cfg.MaxBackoff = cmp.Or(cfg.MaxBackoff, DefaultMaxBackoff)
	cfg.MaxBytes = cmp.Or(cfg.MaxBytes, DefaultMaxBytes)
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	oc := goopenai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = headerDoer{hc}

	e := &Embedder{c: goopenai.NewClientWithConfig(oc), cfg: cfg, id: "openai:" + cfg.Model}
	if cfg.Dims > 0 {
		e.id += "@" + strconv.Itoa(cfg.Dims)
	}
	// dims is still zero here, so the probe accepts any length.
	vs, err := e.Embed(ctx, []string{probeText})
	if err != nil {
		return nil, fmt.Errorf("openai embedder: probe: %w", err)
	}
	n := len(vs[0])
	if n == 0 {
		return nil, fmt.Errorf("openai embedder: probe: model %q returned an empty vector", cfg.Model)
	}
	if cfg.Dims > 0 && n != cfg.Dims {
		return nil, fmt.Errorf("openai embedder: model %q returned %d dims, configured %d (does the server support the dimensions parameter?)",
			cfg.Model, n, cfg.Dims)
	}
	e.dims = n
	return e, nil
}

// ID returns "openai:<model>", with "@<dims>" appended when Dims was
// configured, since the same model truncated to other lengths gives
// vectors that must not be compared.
func (e *Embedder) ID() string { return e.id }

// Dims returns the vector length, known since New.
func (e *Embedder) Dims() int { return e.dims }

// Embed returns one unit-length vector per text, in order, sending at most
// BatchSize texts per request. Batches are sent one after another: rate
// limits, not latency, are what usually bound bulk embedding.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		end := min(start+e.cfg.BatchSize, len(texts))
		vs, err := e.embedBatch(ctx, texts[start:end])
		if err != nil {
			if len(texts) > end-start {
				return nil, fmt.Errorf("inputs %d-%d of %d: %w", start, end-1, len(texts), err)
			}
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (e *Embedder) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	in, cloned := texts, false
	for i, t := range texts {
		if c := cut(t, e.cfg.MaxBytes); len(c) < len(t) {
			if !cloned {
				in, cloned = slices.Clone(texts), true // the caller's slice stays as it was
			}
			in[i] = c
		}
	}
	req := goopenai.EmbeddingRequestStrings{
		Input:      in,
		Model:      goopenai.EmbeddingModel(e.cfg.Model),
		Dimensions: e.cfg.Dims,
	}
	for attempt := 1; ; attempt++ {
		resp, hint, err := e.send(ctx, req)
		if err == nil {
			return e.collect(texts, resp)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("openai embed %q: %w", e.cfg.Model, context.Cause(ctx))
		}
		if !retryable(err) {
			return nil, describe(e.cfg.Model, err)
		}
		if attempt >= e.cfg.MaxAttempts {
			return nil, fmt.Errorf("%w (gave up after %d attempts)", describe(e.cfg.Model, err), attempt)
		}
		t := time.NewTimer(e.delay(attempt, hint))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("openai embed %q: waiting to retry: %w (last error: %v)",
				e.cfg.Model, context.Cause(ctx), describe(e.cfg.Model, err))
		case <-t.C:
		}
	}
}

// send makes one attempt, returning the server's requested retry delay
// (zero if none) alongside any error.
func (e *Embedder) send(ctx context.Context, req goopenai.EmbeddingRequestStrings) (goopenai.EmbeddingResponse, time.Duration, error) {
	actx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	var hint time.Duration
	resp, err := e.c.CreateEmbeddings(context.WithValue(actx, hintKey{}, &hint), req)
	return resp, hint, err
}

// collect puts the response's vectors in input order, checks them and
// normalises them.
func (e *Embedder) collect(texts []string, resp goopenai.EmbeddingResponse) ([][]float32, error) {
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("openai embed %q: sent %d inputs, got %d vectors", e.cfg.Model, len(texts), len(resp.Data))
	}
	out := make([][]float32, len(texts))
	dims := e.dims
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index] != nil {
			return nil, fmt.Errorf("openai embed %q: response has missing, duplicate or out-of-range index %d", e.cfg.Model, d.Index)
		}
		if dims == 0 {
			dims = len(d.Embedding) // learning the length during New's probe
		}
		if len(d.Embedding) != dims {
			return nil, fmt.Errorf("openai embed %q: input %d: got %d dims, want %d", e.cfg.Model, d.Index, len(d.Embedding), dims)
		}
		if err := normalize(d.Embedding); err != nil {
			return nil, fmt.Errorf("openai embed %q: input %d: %w", e.cfg.Model, d.Index, err)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}

// cut returns s shortened to at most n bytes without splitting a
// character; n < 0 means no limit.
func cut(s string, n int) string {
	if n < 0 || len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// normalize scales v to unit length in place. An all-zero vector is left
// as is: it has no direction, and scores zero against everything, which is
// the honest answer.
func normalize(v []float32) error {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if math.IsNaN(ss) || math.IsInf(ss, 0) {
		return errors.New("vector has NaN or infinite values")
	}
	if ss == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return nil
}

// delay is the wait before retry number attempt (1-based): exponential
// backoff with equal jitter, so that clients rate-limited together do not
// retry together, but never less than the server asked for.
func (e *Embedder) delay(attempt int, hint time.Duration) time.Duration {
	d := e.cfg.Backoff
	for i := 1; i < attempt && d < e.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, e.cfg.MaxBackoff)
	d = d/2 + rand.N(d/2+1)
	return min(max(d, hint), e.cfg.MaxBackoff)
}

// statusOf returns the HTTP status and server message in err, if any.
func statusOf(err error) (int, string) {
	if ae, ok := errors.AsType[*goopenai.APIError](err); ok {
		return ae.HTTPStatusCode, ae.Message
	}
	if re, ok := errors.AsType[*goopenai.RequestError](err); ok {
		msg := strings.TrimSpace(string(re.Body))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return re.HTTPStatusCode, msg
	}
	return 0, ""
}

// retryable reports whether err is worth another attempt: rate limiting,
// server errors and transport failures (including a timed-out attempt).
// Other 4xx mean the request itself is wrong and would fail again.
func retryable(err error) bool {
	code, _ := statusOf(err)
	switch {
	case code == http.StatusTooManyRequests || code >= 500:
		return true
	case code != 0:
		return false
	}
	// No status: the request never got an HTTP answer (http.Client errors
	// are all *url.Error), timed out, or the body was cut short; all
	// transient. A well-delivered body that is not valid JSON is not.
	return errors.As(err, new(*url.Error)) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF)
}

// describe turns err into a message naming the model and, if the server
// answered, the HTTP status and its message, without go-openai's
// repetition of both; the original error stays reachable with errors.As.
func describe(model string, err error) error {
	if code, msg := statusOf(err); code != 0 {
		return &StatusError{Model: model, Code: code, Message: msg, err: err}
	}
	return fmt.Errorf("openai embed %q: %w", model, err)
}

// StatusError is returned when the server answers with an HTTP error.
type StatusError struct {
	Model   string
	Code    int    // HTTP status code
	Message string // the server's error message, or the start of its body
	err     error
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("openai embed %q: HTTP %d %s: %s", e.Model, e.Code, http.StatusText(e.Code), e.Message)
}

func (e *StatusError) Unwrap() error { return e.err }

// hintKey marks the context value through which headerDoer reports a
// server's Retry-After; go-openai does not expose headers of failed
// responses.
type hintKey struct{}

type headerDoer struct{ c *http.Client }

func (h headerDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := h.c.Do(req)
	if err == nil && resp.StatusCode >= 400 {
		if p, ok := req.Context().Value(hintKey{}).(*time.Duration); ok {
			*p = retryAfter(resp.Header, time.Now())
		}
	}
	return resp, err
}

// retryAfter parses the delay a server asks for: Retry-After-Ms (OpenAI,
// Azure) or Retry-After as seconds or an HTTP date. Zero if absent or
// unparsable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e9 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Package endpoint implements reranker.Reranker over an HTTP /rerank
// endpoint: the request and response that Cohere and Jina defined, which
// llama.cpp's server (--reranking), vLLM, Infinity, LocalAI, Voyage and
// Mixedbread serve too, or the one of Hugging Face's
// text-embeddings-inference (API "tei").
//
// The standard library is enough for one JSON POST; go-openai, which the
// embedder uses, has no rerank call.
package endpoint

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"agentmem/memory/reranker"
)

// The request shapes Config.API names.
const (
	// Cohere is {"model", "query", "documents"} answered by {"results":
	// [{"index", "relevance_score"}]} ("data" instead of "results" is
	// read too, as Voyage answers).
	Cohere = "cohere"
	// TEI is text-embeddings-inference's {"query", "texts"} answered by
	// [{"index", "score"}].
	TEI = "tei"
)

// Defaults for the zero values of Config.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxAttempts = 2
	DefaultBackoff     = 100 * time.Millisecond
	// DefaultBatchSize is the most documents one request carries: the
	// default limit of text-embeddings-inference
	// (--max-client-batch-size 32). A cross-encoder scores each pair on
	// its own, so batches sent side by side give the scores one request
	// would.
	DefaultBatchSize = 32
	// maxResponse bounds what is read of an answer.
	maxResponse = 8 << 20
)

// probeQuery is what Probe scores.
const probeQuery = "reranker probe"

// Config configures a Reranker. Only URL is required.
type Config struct {
	// URL is the endpoint itself, path included, e.g.
	// "http://localhost:8080/v1/rerank".
	URL string
	// Model is sent as "model" when not empty (Cohere, Jina and vLLM need
	// it; llama.cpp serves the model it loaded).
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// API is Cohere (the default) or TEI.
	API string
	// Timeout bounds one Rerank call, retries included
	// (DefaultTimeout if zero).
	Timeout time.Duration
	// MaxAttempts bounds the tries of a call, counting the first
	// (DefaultMaxAttempts if zero); only rate limits, server errors and
	// transport failures are tried again.
	MaxAttempts int
	// BatchSize is the most documents one request carries
	// (DefaultBatchSize if zero); more are sent in requests side by side.
	BatchSize int
	// HTTPClient, if set, sends the requests (proxies, custom TLS).
	HTTPClient *http.Client
}

// Reranker scores documents through one endpoint. It is immutable after
// New and safe for concurrent use.
type Reranker struct {
	cfg Config
	hc  *http.Client
	id  string
}

var _ reranker.Reranker = (*Reranker)(nil)

// New checks cfg; it sends nothing (see Probe).
func New(cfg Config) (*Reranker, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("reranker url %q: must be an http:// or https:// URL of the endpoint, e.g. http://localhost:8080/v1/rerank", cfg.URL)
	}
	cfg.API = cmp.Or(cfg.API, Cohere)
	if cfg.API != Cohere && cfg.API != TEI {
		return nil, fmt.Errorf("reranker api %q: must be %s or %s", cfg.API, Cohere, TEI)
	}
	if cfg.Timeout < 0 || cfg.MaxAttempts < 0 || cfg.BatchSize < 0 {
		return nil, errors.New("reranker: a negative timeout, attempts or batch size")
	}
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.BatchSize = cmp.Or(cfg.BatchSize, DefaultBatchSize)
	hc := cmp.Or(cfg.HTTPClient, http.DefaultClient)
	// the key never reaches the id, which is logged and returned
	u.User = nil
	id := "rerank:" + cmp.Or(cfg.Model, "(served model)") + "@" + u.String()
	return &Reranker{cfg: cfg, hc: hc, id: id}, nil
}

// ID names the model and the endpoint (without credentials).
func (r *Reranker) ID() string { return r.id }

// Probe scores one document, to tell whether the endpoint answers as a
// reranker: a wrong URL, key or model says so here.
func (r *Reranker) Probe(ctx context.Context) error {
	_, err := r.Rerank(ctx, probeQuery, []string{probeQuery})
	return err
}

// Rerank scores documents against query: one finite score each, in order,
// in batches of at most BatchSize sent side by side, all within Timeout.
func (r *Reranker) Rerank(ctx context.Context, query string, documents []string) ([]float64, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, r.cfg.Timeout, fmt.Errorf("no answer within %s", r.cfg.Timeout))
	defer cancel()
	out := make([]float64, len(documents))
	g, gctx := errgroup.WithContext(ctx)
	for start := 0; start < len(documents); start += r.cfg.BatchSize {
		end := min(start+r.cfg.BatchSize, len(documents))
		g.Go(func() error {
			scores, err := r.batch(gctx, query, documents[start:end])
			if err != nil && end-start < len(documents) {
				err = fmt.Errorf("documents %d-%d of %d: %w", start, end-1, len(documents), err)
			}
			copy(out[start:end], scores)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("%s: %w", r.id, err)
	}
	return out, nil
}

// batch scores documents in one request, tried again as Config says.
func (r *Reranker) batch(ctx context.Context, query string, documents []string) ([]float64, error) {
	body, err := r.request(query, documents)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		scores, retry, err := r.send(ctx, body, len(documents))
		if err == nil {
			return scores, nil
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if !retry || attempt >= r.cfg.MaxAttempts {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(DefaultBackoff << (attempt - 1)):
		}
	}
}

// request is the body of a call. The documents go as they are: the
// memory sends a long one as its part that best matches the query.
func (r *Reranker) request(query string, docs []string) ([]byte, error) {
	if r.cfg.API == TEI {
		// truncate: text-embeddings-inference refuses a pair longer than
		// the model's window instead of cutting it
		return json.Marshal(struct {
			Query    string   `json:"query"`
			Texts    []string `json:"texts"`
			Truncate bool     `json:"truncate"`
		}{query, docs, true})
	}
	return json.Marshal(struct {
		Model     string   `json:"model,omitempty"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
	}{r.cfg.Model, query, docs})
}

// send makes one attempt; retry says whether another may succeed.
func (r *Reranker) send(ctx context.Context, body []byte, n int) (scores []float64, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if r.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.cfg.APIKey)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, true, err // no answer: the network, or the time ran out
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, true, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, retry, fmt.Errorf("status %d: %s", resp.StatusCode, excerpt(data))
	}
	if len(data) > maxResponse {
		return nil, false, fmt.Errorf("the answer is over %d bytes", maxResponse)
	}
	scores, err = parse(data, n)
	return scores, false, err
}

// result is one scored document, as any of the supported APIs writes it.
type result struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"`
	Score          *float64 `json:"score"`
}

// parse reads the scores of n documents: every document scored exactly
// once, every score a finite number.
func parse(data []byte, n int) ([]float64, error) {
	var results []result
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &results); err != nil {
			return nil, fmt.Errorf("the answer is not a list of scores: %w", err)
		}
	} else {
		var obj struct {
			Results []result `json:"results"`
			Data    []result `json:"data"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("the answer is not JSON with results: %w (%s)", err, excerpt(data))
		}
		if obj.Results == nil && obj.Data == nil {
			return nil, fmt.Errorf("the answer has no results: %s", excerpt(data))
		}
		results = obj.Results
		if results == nil {
			results = obj.Data
		}
	}
	switch {
	case len(results) < n:
		return nil, fmt.Errorf("sent %d documents, got %d scores (does the endpoint apply a top_n of its own?)", n, len(results))
	case len(results) > n:
		return nil, fmt.Errorf("sent %d documents, got %d scores", n, len(results))
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	for _, res := range results {
		if res.Index == nil || *res.Index < 0 || *res.Index >= n || seen[*res.Index] {
			return nil, fmt.Errorf("the answer has a missing, duplicate or out-of-range index")
		}
		s := cmp.Or(res.RelevanceScore, res.Score)
		if s == nil || math.IsNaN(*s) || math.IsInf(*s, 0) {
			return nil, fmt.Errorf("document %d: no finite relevance_score or score", *res.Index)
		}
		seen[*res.Index] = true
		out[*res.Index] = *s
	}
	return out, nil
}

// excerpt is the start of an answer, for an error message.
func excerpt(data []byte) string {
	s := strings.TrimSpace(string(data))
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	if s == "" {
		return "(no body)"
	}
	return s
}

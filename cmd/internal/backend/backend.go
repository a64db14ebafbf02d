// Package backend is the composition root of the commands: configuration
// -> store + embedder + clock -> memory.Service. Every command that needs
// the memory (agentmem serve, its shell commands, reindex, and the
// in-process server of agentmem-eval) opens it here, so all of them run
// exactly what a user runs. Backends are chosen here and nowhere else.
package backend

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/cache"
	"agentmem/memory/embedder/openai"
	"agentmem/memory/embedder/uselite"
	"agentmem/memory/reranker/endpoint"
	"agentmem/memory/store/couchbase"
	"agentmem/memory/store/embedded"
	"agentmem/server"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// Backend is the memory a command works with: the service over its store
// and embedder, and what must be closed when the command ends.
type Backend struct {
	Service  *memory.Service
	Store    memory.Store
	Embedder memory.Embedder // nil for none
	Reranker memory.Reranker // nil for none
	closers  []func() error
}

// Close releases the store and the embedding cache.
func (e *Backend) Close() error {
	var errs []error
	for i := len(e.closers) - 1; i >= 0; i-- {
		errs = append(errs, e.closers[i]())
	}
	return errors.Join(errs...)
}

// OnClose has Close run fn last, once the memory is closed.
func (e *Backend) OnClose(fn func() error) {
	e.closers = append([]func() error{fn}, e.closers...)
}

// Open assembles the memory that cfg describes; a nil log logs nothing.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*Backend, error) {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	loc, now, err := cfg.Clock()
	if err != nil {
		return nil, err
	}
	dir, err := cfg.Prepare()
	if err != nil {
		return nil, err
	}
	e := &Backend{}
	fail := func(err error) (*Backend, error) {
		e.Close()
		return nil, err
	}
	emb, err := cfg.NewEmbedder(ctx, dir)
	if err != nil {
		return fail(err)
	}
	id, dims := "", 0
	if emb != nil {
		// a turn is embedded with the end of the one before it
		id, dims = memory.Contextual(emb).ID(), emb.Dims()
	}
	// the store first: when another process holds it, say so at once
	st, err := cfg.openStore(ctx, dir, id, dims, false, log)
	if err != nil {
		return fail(err)
	}
	e.closers = append(e.closers, st.Close)
	e.Store = st
	if emb != nil {
		e.Embedder = memory.Contextual(e.cached(dir, emb, log))
		warnRecipe(st, log)
	}
	if e.Reranker, err = cfg.NewReranker(ctx); err != nil {
		return fail(err)
	}
	e.Service, err = memory.New(memory.Options{
		Store: st, Embedder: e.Embedder, Now: now, Location: loc,
		Reranker: e.Reranker, RerankCandidates: cfg.Reranker.Candidates,
		Namespace: cfg.Namespace, Fusion: memory.Fusion(cfg.Fusion), Logger: log,
	})
	if err != nil {
		return fail(err)
	}
	// the background vectors stop before the store and the cache close
	e.closers = append(e.closers, e.Service.Close)
	log.Debug("memory ready", "data_dir", dir, "embedder", describe(e.Embedder), "reranker", describeReranker(e.Reranker), "namespace", cfg.Namespace)
	return e, nil
}

// warnRecipe says when st's memories were embedded by an earlier recipe
// (memory.Recipe): they are found, but each by its one vector.
func warnRecipe(st any, log *slog.Logger) {
	r, ok := st.(memory.RecipeReporter)
	if !ok || r.Recipe() == memory.Recipe {
		return
	}
	log.Warn("the stored memories were embedded by an earlier agentmem, without a vector for each sentence of a short turn: they rank a little below new ones on the vector side until they get theirs, which `agentmem serve` gives them in the background and `agentmem reindex` at once (docs/storage.md)", "recipe", cmp.Or(r.Recipe(), "(none recorded)"), "now", memory.Recipe)
}

// cached wraps emb in the embedding cache of dir. The cache only saves
// time: when it cannot be opened (another process on this data dir holds
// it, as with two servers on one Couchbase store), the memory runs without;
// a damaged one is moved away and started anew, and one found damaged in
// use is bypassed from then on.
func (e *Backend) cached(dir string, emb memory.Embedder, log *slog.Logger) memory.Embedder {
	path := filepath.Join(dir, "embeddings.db")
	c, err := cache.Open(path, emb)
	if errors.Is(err, cache.ErrDamaged) {
		to, derr := cache.Discard(path)
		if derr == nil {
			log.Warn("the embedding cache was damaged: moved it away and started a new one (texts are embedded again as they come)", "err", err, "moved_to", to)
			c, err = cache.Open(path, emb)
		}
	}
	if err != nil {
		log.Warn("running without the embedding cache", "err", err)
		return emb
	}
	c.OnDamage = func(err error) {
		log.Warn("the embedding cache turned out damaged: running without it, and replacing it when the memory closes", "err", err)
	}
	e.closers = append(e.closers, func() error {
		err := c.Close()
		if c.Damaged() != nil {
			if to, derr := cache.Discard(path); derr == nil {
				log.Warn("moved the damaged embedding cache away; the next start begins a new one", "moved_to", to)
			}
		}
		return err
	})
	return c
}

// ServerAt returns a factory of MCP servers over b's store and embedder
// whose clock reads a given time: the eval harness gives each benchmark
// unit its own "today".
func (b *Backend) ServerAt(cfg Config) func(now time.Time) (*mcpserver.MCPServer, error) {
	return func(now time.Time) (*mcpserver.MCPServer, error) {
		svc, err := memory.New(memory.Options{
			Store: b.Store, Embedder: b.Embedder, Location: b.Service.Location(),
			Reranker: b.Reranker, RerankCandidates: cfg.Reranker.Candidates,
			Namespace: cfg.Namespace, Fusion: memory.Fusion(cfg.Fusion),
			Now: func() time.Time { return now },
		})
		if err != nil {
			return nil, err
		}
		return server.New(svc, server.Options{Version: "eval"}), nil
	}
}

// Describe names b for reports.
func (b *Backend) Describe(cfg Config) string {
	return fmt.Sprintf("in-process agentmem (store %s, embedder %s, reranker %s, default fusion %s)", cfg.Store, describe(b.Embedder), describeReranker(b.Reranker), cfg.Fusion)
}

// Reindexable is a store that can re-embed what it holds.
type Reindexable interface {
	memory.Store
	memory.Reindexer
}

// OpenForReindex opens the store whatever embedder built it, with the
// configured embedder to re-embed it.
func OpenForReindex(ctx context.Context, cfg Config, log *slog.Logger) (Reindexable, memory.Embedder, func() error, error) {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	dir, err := cfg.Prepare()
	if err != nil {
		return nil, nil, nil, err
	}
	e := &Backend{}
	emb, err := cfg.NewEmbedder(ctx, dir)
	if err != nil {
		return nil, nil, nil, err
	}
	if emb != nil {
		emb = memory.Contextual(e.cached(dir, emb, log))
	}
	st, err := cfg.openStore(ctx, dir, "", 0, true, log)
	if err != nil {
		e.Close()
		return nil, nil, nil, err
	}
	e.closers = append(e.closers, st.Close)
	return st, emb, e.Close, nil
}

// openStore opens the configured store for an embedder (id, dims);
// anyEmbedder skips the check that the store was built with it.
func (cfg Config) openStore(ctx context.Context, dir, id string, dims int, anyEmbedder bool, log *slog.Logger) (Reindexable, error) {
	switch cfg.Store {
	case "", "embedded":
		if err := cfg.checkTextCache(); err != nil {
			return nil, err
		}
		textCache := int64(cfg.TextCache) << 20
		if textCache == 0 {
			textCache = -1 // none (0 is the store's default)
		}
		return embedded.Open(ctx, filepath.Join(dir, "store"), embedded.Options{
			EmbedderID: id, Dims: dims, SkipEmbedderCheck: anyEmbedder, Recipe: memory.Recipe, NoSync: cfg.NoSync, TextCache: textCache, Logger: log, // every embedder is contextual here (memory.RecipeOf)
		})
	case "couchbase":
		cb := cfg.Couchbase.Config()
		cb.Logger = log.With("component", "gocb")
		cb.Recipe = memory.Recipe
		if anyEmbedder {
			return couchbase.OpenForReindex(ctx, cb)
		}
		return couchbase.Open(ctx, cb, id, dims)
	}
	return nil, fmt.Errorf("store: unknown %q (use embedded or couchbase)", cfg.Store)
}

// EmbedderDims opens the configured embedder and reports its dimensions (0
// for none), for setting up a store's vector index.
func EmbedderDims(ctx context.Context, cfg Config) (int, error) {
	dir, err := cfg.Dir()
	if err != nil {
		return 0, err
	}
	e, err := cfg.NewEmbedder(ctx, dir)
	if err != nil || e == nil {
		return 0, err
	}
	return e.Dims(), nil
}

func describe(e memory.Embedder) string {
	if e == nil {
		return "none (lexical only)"
	}
	return fmt.Sprintf("%s, %d dimensions", e.ID(), e.Dims())
}

func describeReranker(r memory.Reranker) string {
	if r == nil {
		return "none"
	}
	return r.ID()
}

// Check reports a setting that can never work, naming its flag, with
// nothing opened or sent: serve checks it before it answers a client, so
// that a bad setting fails at start rather than in every call.
func (cfg Config) Check() error {
	if err := memory.ValidNamespace(cmp.Or(cfg.Namespace, memory.DefaultNamespace)); err != nil { // "" is the default, as memory.Options reads it
		return fmt.Errorf("--%w", err) // "--namespace: …": the field is the flag
	}
	if err := cfg.checkTextCache(); err != nil {
		return err
	}
	_, err := cfg.NewReranker(context.Background())
	return err
}

func (cfg Config) checkTextCache() error {
	if cfg.TextCache < 0 || int64(cfg.TextCache) > math.MaxInt64>>20 {
		return fmt.Errorf("--text-cache: must be between 0 and %d MB, got %d", int64(math.MaxInt64>>20), cfg.TextCache)
	}
	return nil
}

// NewReranker returns the configured reranker (nil for none), its
// settings checked. It sends nothing: a reranker that does not answer
// leaves recalls in the fused order, and the memory works without it (see
// ProbeReranker).
func (cfg Config) NewReranker(ctx context.Context) (memory.Reranker, error) {
	c := cfg.Reranker
	if c.Candidates < 0 || c.Candidates > memory.MaxK {
		return nil, fmt.Errorf("--reranker-candidates: must be between 1 and %d (0: four times k), got %d", memory.MaxK, c.Candidates)
	}
	if c.URL == "" {
		return nil, nil
	}
	if c.Timeout <= 0 {
		return nil, fmt.Errorf("--reranker-timeout: must be more than 0, got %s", c.Timeout)
	}
	r, err := endpoint.New(endpoint.Config{URL: c.URL, Model: c.Model, APIKey: c.APIKey, API: c.API, Timeout: c.Timeout})
	if err != nil {
		flag := "--reranker-url"
		if c.API != "" && c.API != endpoint.Cohere && c.API != endpoint.TEI {
			flag = "--reranker-api"
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	// one guard for every service over it (serve's, and the eval's one per
	// unit): they pause together when it fails
	return memory.Guard(r), nil
}

// ProbeReranker has the reranker score one document, and logs whether it
// answers: a wrong URL, key or model is said when the server starts, not
// only in each recall's rerank_error.
func (b *Backend) ProbeReranker(ctx context.Context, log *slog.Logger) error {
	g, ok := b.Reranker.(*memory.Guarded)
	if !ok {
		return nil
	}
	p, ok := g.Reranker.(interface{ Probe(context.Context) error })
	if !ok {
		return nil
	}
	if err := p.Probe(ctx); err != nil {
		log.Warn("the reranker does not answer; recalls keep the fused order until it does", "err", err)
		return err
	}
	log.Info("reranker ready", "reranker", b.Reranker.ID())
	return nil
}

// NewEmbedder opens the configured embedder (nil for none); dir is the data
// dir, for embedders that keep files.
func (cfg Config) NewEmbedder(ctx context.Context, dir string) (memory.Embedder, error) {
	switch cfg.Embedder {
	case "none":
		return nil, nil
	case "", "builtin":
		m, err := uselite.New()
		if err != nil {
			return nil, fmt.Errorf("embedder builtin: %w", err)
		}
		return m, nil
	case "openai":
		key := cmp.Or(cfg.OpenAI.APIKey, os.Getenv("OPENAI_API_KEY"))
		e, err := openai.New(ctx, openai.Config{BaseURL: cfg.OpenAI.BaseURL, Model: cfg.OpenAI.Model, APIKey: key, Dims: cfg.OpenAI.Dims})
		if err != nil {
			return nil, fmt.Errorf("embedder openai (%s, model %s): %w", cfg.OpenAI.BaseURL, cfg.OpenAI.Model, err)
		}
		return e, nil
	}
	return nil, fmt.Errorf("embedder: unknown %q (use builtin, openai or none)", cfg.Embedder)
}

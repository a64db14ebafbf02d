package couchbase

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
)

// Store is a memory.Store on a Couchbase collection and its scoped Search
// index. It is safe for concurrent use; several agentmem processes may share
// one collection.
type Store struct {
	cfg      Config
	cluster  *gocb.Cluster
	scope    *gocb.Scope
	coll     *gocb.Collection
	log      *slog.Logger
	embedder string
	dims     int
	recipeMu sync.Mutex
	recipe   string // recorded in the meta document (setRecipe, Recipe)
	written  tokens
	known    factsCache // each namespace's speakers and count, a while (see speakers)
}

var _ memory.Store = (*Store)(nil)

// Open connects to the cluster of cfg and checks that the collection and the
// Search index that `agentmem couchbase setup` creates are there. The store
// records the embedder (embedderID, dims; "" and 0 for none) its vectors are
// made with; opening it with another one fails with
// memory.ErrEmbedderMismatch unless it holds no memories yet.
func Open(ctx context.Context, cfg Config, embedderID string, dims int) (*Store, error) {
	s, err := dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.checkIndex(ctx, dims); err != nil {
		s.cluster.Close(nil)
		return nil, err
	}
	if err := s.adopt(ctx, embedderID, dims); err != nil {
		s.cluster.Close(nil)
		return nil, err
	}
	return s, nil
}

// dial connects a Store to the cluster of cfg, checking nothing else.
func dial(ctx context.Context, cfg Config) (*Store, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	setLogger(cfg.Logger)
	opts, err := cfg.clusterOptions()
	if err != nil {
		return nil, err
	}
	cluster, err := connect(ctx, cfg, opts, gocb.ServiceTypeKeyValue, gocb.ServiceTypeSearch)
	if err != nil {
		return nil, err
	}
	s := &Store{
		cfg:     cfg,
		cluster: cluster,
		scope:   cluster.Bucket(cfg.Bucket).Scope(cfg.Scope),
		log:     cfg.Logger,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.coll = s.scope.Collection(cfg.Collection)
	return s, nil
}

// connect opens the cluster and waits until the bucket answers on the
// given services, so that wrong credentials or a missing bucket show here
// and not on the first remember.
func connect(ctx context.Context, cfg Config, opts gocb.ClusterOptions, services ...gocb.ServiceType) (*gocb.Cluster, error) {
	cluster, err := gocb.Connect(cfg.URL, opts)
	if err != nil {
		return nil, wrap(err, cfg, "connecting to %s", cfg.URL)
	}
	err = cluster.Bucket(cfg.Bucket).WaitUntilReady(cfg.ConnectTimeout, &gocb.WaitUntilReadyOptions{
		Context:      ctx,
		ServiceTypes: services,
	})
	if err != nil {
		cluster.Close(nil)
		return nil, diagnoseConnect(ctx, cfg, err)
	}
	return cluster, nil
}

// checkIndex fails when the Search index is missing or indexes vectors of
// other dimensions than the embedder's, which the server would silently
// leave out of the index. A user allowed to search but not to read index
// definitions gets a warning instead.
func (s *Store) checkIndex(ctx context.Context, dims int) error {
	def, err := s.scope.SearchIndexes().GetIndex(s.cfg.Index, &gocb.GetSearchIndexOptions{Context: ctx})
	if errors.Is(err, gocb.ErrIndexNotFound) {
		return wrap(err, s.cfg, "opening Search index %s", s.cfg.Index)
	}
	if err != nil {
		s.log.Warn("cannot read the Search index definition; its vector dimensions are not checked", "index", s.cfg.Index, "err", brief(err))
		return nil
	}
	have, err := indexDims(def, s.cfg)
	if err != nil {
		return fmt.Errorf("Search index %s was not made by `agentmem couchbase setup`: %w", s.cfg.Index, err)
	}
	if have != dims {
		return fmt.Errorf("Search index %s indexes vectors of %d dimensions and the embedder makes %d: run `agentmem couchbase setup` with this embedder (then `agentmem reindex` if memories were embedded by another)", s.cfg.Index, have, dims)
	}
	if outdated(def, s.cfg, dims) {
		s.log.Warn("the Search index maps memories as another version of agentmem did, not as this one searches them (an earlier one: no irregular verbs or British spellings, docs/couchbase.md): run `agentmem couchbase setup`, then `agentmem reindex`; until then memories are found as that version found them, or less", "index", s.cfg.Index)
	}
	return nil
}

// adopt checks the embedder recorded in the meta document against the
// configured one, recording it (and the configured recipe) when there is
// none or the store is empty.
func (s *Store) adopt(ctx context.Context, id string, dims int) error {
	res, err := s.coll.Get(metaKey, &gocb.GetOptions{Context: ctx})
	if err != nil && !errors.Is(err, gocb.ErrDocumentNotFound) {
		return wrap(err, s.cfg, "reading the store's meta document from %s", s.cfg.keyspace())
	}
	if err == nil {
		var meta metaDoc
		if err := res.Content(&meta); err != nil {
			return fmt.Errorf("decoding the meta document %s of %s: %w", metaKey, s.cfg.keyspace(), err)
		}
		same := meta.Embedder == id && meta.Dims == dims
		if same && (meta.Recipe == s.cfg.Recipe || id == "") {
			s.embedder, s.dims = id, dims
			s.setRecipe(meta.Recipe)
			return nil
		}
		empty, err := s.empty(ctx)
		if err != nil {
			return err
		}
		switch {
		case same && !empty:
			// vectors of another recipe: the embedder's space, so they
			// are searched as they are (Recipe says which)
			s.embedder, s.dims = id, dims
			s.setRecipe(meta.Recipe)
			return nil
		case !empty:
			return fmt.Errorf("%w: %s holds vectors of %s, and this server is configured with %s; run `agentmem reindex` with the new embedder to re-embed every memory in place, or start with the old one",
				memory.ErrEmbedderMismatch, s.cfg.keyspace(), describe(meta.Embedder, meta.Dims), describe(id, dims))
		}
	}
	return s.recordEmbedder(ctx, id, dims)
}

// recordEmbedder records the embedder (id, dims) and, with an embedder,
// the configured recipe in the meta document.
func (s *Store) recordEmbedder(ctx context.Context, id string, dims int) error {
	if err := s.putMeta(ctx, id, dims); err != nil {
		return err
	}
	s.embedder, s.dims = id, dims
	return nil
}

// putMeta writes the meta document of the embedder (id, dims) and, with
// one, the configured recipe (no vectors, no recipe), which Recipe then
// reports.
func (s *Store) putMeta(ctx context.Context, id string, dims int) error {
	recipe := s.cfg.Recipe
	if id == "" {
		recipe = ""
	}
	meta := metaDoc{Type: typeMeta, Embedder: id, Dims: dims, Recipe: recipe, Updated: time.Now().UTC()}
	if _, err := s.coll.Upsert(metaKey, meta, &gocb.UpsertOptions{Context: ctx}); err != nil {
		return wrap(err, s.cfg, "recording the embedder in %s", s.cfg.keyspace())
	}
	s.setRecipe(recipe)
	return nil
}

// Recipe reports the recipe the stored vectors were made by (Config.Recipe;
// "" in a collection made before recipes were recorded).
func (s *Store) Recipe() string {
	s.recipeMu.Lock()
	defer s.recipeMu.Unlock()
	return s.recipe
}

// setRecipe sets what Recipe reports: a delete that empties the collection
// records it while other calls run.
func (s *Store) setRecipe(r string) {
	s.recipeMu.Lock()
	s.recipe = r
	s.recipeMu.Unlock()
}

// empty reports whether the collection holds no memory, by a key range
// scan that stops at the first memory key.
func (s *Store) empty(ctx context.Context) (bool, error) {
	res, err := s.coll.Scan(gocb.NewRangeScanForPrefix(kindMemory+sep), &gocb.ScanOptions{
		Context: ctx, IDsOnly: true, BatchItemLimit: new(uint32(1)),
	})
	if err != nil {
		return false, wrap(err, s.cfg, "checking whether %s holds memories", s.cfg.keyspace())
	}
	defer res.Close()
	if res.Next() != nil {
		return false, nil
	}
	if err := res.Err(); err != nil {
		return false, wrap(err, s.cfg, "checking whether %s holds memories", s.cfg.keyspace())
	}
	return true, nil
}

func describe(id string, dims int) string {
	if id == "" {
		return "no embedder (--embedder none)"
	}
	return fmt.Sprintf("%s (%d dimensions)", id, dims)
}

// Embedder reports the embedder of the stored vectors.
func (s *Store) Embedder() (string, int) { return s.embedder, s.dims }

// Close disconnects from the cluster.
func (s *Store) Close() error {
	if err := s.cluster.Close(nil); err != nil {
		return wrap(err, s.cfg, "closing the connection to %s", s.cfg.URL)
	}
	return nil
}

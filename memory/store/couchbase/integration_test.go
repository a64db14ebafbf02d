package couchbase

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
	"agentmem/memory/store/storetest"
)

// The integration suite runs against a real cluster when
// AGENTMEM_TEST_COUCHBASE holds its connection string, with
// AGENTMEM_TEST_COUCHBASE_USER, _PASSWORD and _BUCKET (default "agentmem",
// which must exist). It creates a collection and a Search index of its own
// in the scope agentmem_test and drops them afterwards.
// AGENTMEM_TEST_COUCHBASE_FUSION (rrf or sum) and _DURABILITY (default
// none, for a single-node cluster) tune it to the server.
func integration(t *testing.T) Config {
	t.Helper()
	url := os.Getenv("AGENTMEM_TEST_COUCHBASE")
	if url == "" {
		t.Skip("no Couchbase cluster: set AGENTMEM_TEST_COUCHBASE=couchbase://host (and AGENTMEM_TEST_COUCHBASE_USER, _PASSWORD, _BUCKET) to run the integration suite")
	}
	env := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	suffix := make([]byte, 4)
	rand.Read(suffix)
	name := "t" + hex.EncodeToString(suffix)
	cfg := Config{
		URL:        url,
		Username:   env("AGENTMEM_TEST_COUCHBASE_USER", "Administrator"),
		Password:   env("AGENTMEM_TEST_COUCHBASE_PASSWORD", "password"),
		Bucket:     env("AGENTMEM_TEST_COUCHBASE_BUCKET", "agentmem"),
		Scope:      "agentmem_test",
		Collection: name,
		Index:      "agentmem_" + name,
		Fusion:     env("AGENTMEM_TEST_COUCHBASE_FUSION", FusionRRF),
		Durability: env("AGENTMEM_TEST_COUCHBASE_DURABILITY", "none"),
		CACert:     os.Getenv("AGENTMEM_TEST_COUCHBASE_CA_CERT"),
	}.withDefaults()
	t.Cleanup(func() { dropTestKeyspace(t, cfg) })
	return cfg
}

func dropTestKeyspace(t *testing.T, cfg Config) {
	opts, err := cfg.clusterOptions()
	if err != nil {
		return
	}
	opts.TransactionsConfig = gocb.TransactionsConfig{}
	c, err := gocb.Connect(cfg.URL, opts)
	if err != nil {
		return
	}
	defer c.Close(nil)
	b := c.Bucket(cfg.Bucket)
	if err := b.Scope(cfg.Scope).SearchIndexes().DropIndex(cfg.Index, nil); err != nil && !errors.Is(err, gocb.ErrIndexNotFound) {
		t.Logf("dropping index %s: %v", cfg.Index, err)
	}
	if err := b.CollectionsV2().DropCollection(cfg.Scope, cfg.Collection, nil); err != nil && !errors.Is(err, gocb.ErrCollectionNotFound) {
		t.Logf("dropping collection %s: %v", cfg.keyspace(), err)
	}
}

const fakeEmbedder = "fake@1"

// The Couchbase store passes the store conformance suite, on a cluster.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Open {
		cfg := integration(t)
		ctx := context.Background()
		setup := -1 // the dimensions the index was set up for
		return func(id string, dims int, any bool) (memory.Store, error) {
			if any {
				return OpenForReindex(ctx, cfg)
			}
			if dims != setup {
				if err := Setup(ctx, cfg, dims, io.Discard); err != nil {
					return nil, err
				}
				setup = dims
			}
			return Open(ctx, cfg, id, dims)
		}
	})
}

// What only Couchbase has: setup, the index's dimensions, transactions.
func TestIntegration(t *testing.T) {
	cfg := integration(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var out strings.Builder
	if err := Setup(ctx, cfg, 4, &out); err != nil {
		t.Fatalf("setup: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := Setup(ctx, cfg, 4, &out); err != nil {
		t.Fatalf("setup again: %v", err)
	}
	if strings.Contains(out.String(), "created") || !strings.Contains(out.String(), "up to date") {
		t.Errorf("setup is not idempotent:\n%s", out.String())
	}

	s, err := Open(ctx, cfg, fakeEmbedder, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if id, dims := s.Embedder(); id != fakeEmbedder || dims != 4 {
		t.Errorf("Embedder() = %s, %d", id, dims)
	}
	ms := fixture()
	if err := s.Put(ctx, ms); err != nil {
		t.Fatal(err)
	}

	t.Run("all or nothing", func(t *testing.T) {
		// Twenty good memories and, last in key order, one whose vector
		// cannot be encoded: the transaction has staged others when it
		// fails, and must roll them all back.
		var batch []memory.Memory
		for i := range 21 {
			m := ms[0]
			m.SessionID, m.Turn = "s-new", i
			m.ID = memory.MemoryID(m.SessionID, i)
			batch = append(batch, m)
		}
		batch[20].ID = "s-new:z"
		batch[20].Vectors = [][]float32{{float32(math.NaN()), 0, 0, 0}}
		if err := s.Put(ctx, batch); err == nil {
			t.Fatal("Put stored a NaN vector")
		}
		res, err := s.memories(ctx, []string{memoryKey("alice", "s-new:0"), memoryKey("alice", "s-new:19")})
		if err != nil || len(res) != 0 {
			t.Errorf("a failed Put left documents %v (%v)", res, err)
		}
	})

	t.Run("index dimensions", func(t *testing.T) {
		if _, err := Open(ctx, cfg, fakeEmbedder, 8); err == nil || !strings.Contains(err.Error(), "agentmem couchbase setup") {
			t.Errorf("error %v, want one saying the index has other dimensions", err)
		}
	})
}

// constEmbedder embeds every text as the same unit vector.
type constEmbedder struct {
	id   string
	dims int
}

func (c constEmbedder) ID() string { return c.id }
func (c constEmbedder) Dims() int  { return c.dims }
func (c constEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, c.dims)
		out[i][len(out[i])-2] = 1
	}
	return out, nil
}

func ids(hits []memory.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Memory.ID
	}
	return out
}

func sameSet(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

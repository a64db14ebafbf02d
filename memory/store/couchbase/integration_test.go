package couchbase

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"

	"agentmem/memory"
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

	t.Run("recall right after remember", func(t *testing.T) {
		for _, fusion := range []memory.Fusion{memory.RRF, memory.RSF, memory.TextOnly, memory.VectorOnly, memory.Rerank} {
			q := memory.Query{Namespace: "alice", Text: "how is Biscuit the dog",
				Vector: unit([]float32{1, 0, 0, 0}), K: 3, Fusion: fusion}
			hits, err := s.Search(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", fusion, err)
			}
			if len(hits) == 0 || hits[0].Memory.ID != "s-may:0" {
				t.Errorf("%s: hits %v, want s-may:0 first", fusion, ids(hits))
			}
			for _, h := range hits {
				if h.Memory.Namespace != "alice" || h.Memory.Vectors != nil {
					t.Errorf("%s: hit %+v: another namespace, or vectors handed out", fusion, h.Memory)
				}
			}
		}
	})

	t.Run("namespace isolation", func(t *testing.T) {
		for _, fusion := range []memory.Fusion{memory.RRF, memory.VectorOnly} {
			hits, err := s.Search(ctx, memory.Query{Namespace: "bob", Text: "Biscuit Lisbon",
				Vector: unit([]float32{1, 0, 0, 0}), K: 10, Fusion: fusion})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(hits); !sameSet(got, []string{"s-may:0", "s-x:0"}) {
				t.Errorf("%s: bob's recall %v, want exactly bob's two memories", fusion, got)
			}
		}
	})

	t.Run("session and filters", func(t *testing.T) {
		got, err := s.Session(ctx, "alice", "s-may")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Turn != 0 || got[1].Turn != 1 || got[0].Text != ms[0].Text {
			t.Errorf("session %+v, want turns 0 and 1 in order", got)
		}
		none, err := s.Session(ctx, "alice", "no-such-session")
		if err != nil || len(none) != 0 {
			t.Errorf("unknown session: %v, %v", none, err)
		}
		hits, err := s.Search(ctx, memory.Query{Namespace: "alice", Text: "Biscuit",
			Vector: unit([]float32{1, 0, 0, 0}), K: 10, Fusion: memory.RRF,
			After: time.Date(2024, 5, 10, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Memory.SessionID != "s-june" {
				t.Errorf("date filter let %s through", h.Memory.ID)
			}
		}
	})

	t.Run("best window", func(t *testing.T) {
		long := memory.Memory{ID: "s-long:0", Namespace: "alice", SessionID: "s-long", SessionDate: time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC),
			Role: "user", Text: "A long story whose tail is about sailing.", Hash: "h-long", Embedder: fakeEmbedder,
			Vectors: [][]float32{unit([]float32{0, 1, 0, 0}), unit([]float32{0, 0, 0, 1})}, Created: time.Now().UTC()}
		if err := s.Put(ctx, []memory.Memory{long}); err != nil {
			t.Fatal(err)
		}
		hits, err := s.Search(ctx, memory.Query{Namespace: "alice", Text: "x", Vector: unit([]float32{0, 0, 0, 1}), K: 1, Fusion: memory.VectorOnly})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].Memory.ID != "s-long:0" {
			t.Errorf("hits %v, want the memory whose second window matches", ids(hits))
		}
	})

	t.Run("idempotent re-put", func(t *testing.T) {
		if err := s.Put(ctx, ms); err != nil {
			t.Fatal(err)
		}
		got, err := s.Session(ctx, "alice", "s-may")
		if err != nil || len(got) != 2 {
			t.Errorf("session after re-put: %d memories, %v", len(got), err)
		}
		hits, err := s.Search(ctx, memory.Query{Namespace: "alice", Text: "Biscuit", K: 10, Fusion: memory.TextOnly})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(hits); len(got) != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
			t.Errorf("duplicate hits after re-put: %v", got)
		}
	})

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
		got, err := s.Session(ctx, "alice", "s-new")
		if err != nil || len(got) != 0 {
			t.Errorf("a failed Put left %d memories (%v)", len(got), err)
		}
		res, err := s.memories(ctx, []string{memoryKey("alice", "s-new:0"), memoryKey("alice", "s-new:19")})
		if err != nil || len(res) != 0 {
			t.Errorf("a failed Put left documents %v (%v)", res, err)
		}
		batch[20].Vectors = [][]float32{{1, 0}}
		if err := s.Put(ctx, batch); err == nil || !strings.Contains(err.Error(), "dimensions") {
			t.Errorf("error %v, want a dimensions error", err)
		}
	})

	t.Run("forget", func(t *testing.T) {
		n, err := s.Delete(ctx, memory.Selector{Namespace: "alice", IDs: []string{"s-may:1", "s-may:1", "nope"}})
		if err != nil || n != 1 {
			t.Fatalf("delete by id: %d, %v; want 1", n, err)
		}
		got, _ := s.Session(ctx, "alice", "s-may")
		if len(got) != 1 || got[0].ID != "s-may:0" {
			t.Errorf("session after delete %v", got)
		}
		hits, err := s.Search(ctx, memory.Query{Namespace: "alice", Text: "Congratulations adopting", K: 10, Fusion: memory.TextOnly})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(ids(hits), "s-may:1") {
			t.Error("a deleted memory is still recalled")
		}
		if n, err := s.Delete(ctx, memory.Selector{Namespace: "alice", SessionID: "s-june"}); err != nil || n != 2 {
			t.Errorf("delete session: %d, %v; want 2", n, err)
		}
		if n, err := s.Delete(ctx, memory.Selector{Namespace: "bob", All: true}); err != nil || n != 2 {
			t.Errorf("delete namespace: %d, %v; want 2", n, err)
		}
		if got, _ := s.Session(ctx, "bob", "s-may"); len(got) != 0 {
			t.Errorf("bob's session survived: %v", got)
		}
		if got, _ := s.Session(ctx, "alice", "s-may"); len(got) != 1 {
			t.Errorf("deleting bob touched alice: %v", got)
		}
	})

	t.Run("restart and mismatch", func(t *testing.T) {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		var err error
		s, err = Open(ctx, cfg, fakeEmbedder, 4)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Session(ctx, "alice", "s-may")
		if err != nil || len(got) != 1 {
			t.Errorf("after reopening: %v, %v", got, err)
		}
		other, err := Open(ctx, cfg, "other@2", 4)
		if err == nil {
			other.Close()
			t.Fatal("opened a store of fake@1 vectors with other@2")
		}
		if !errors.Is(err, memory.ErrEmbedderMismatch) || !strings.Contains(err.Error(), "agentmem reindex") {
			t.Errorf("error %v, want ErrEmbedderMismatch naming agentmem reindex", err)
		}
		if _, err := Open(ctx, cfg, fakeEmbedder, 8); err == nil || !strings.Contains(err.Error(), "agentmem couchbase setup") {
			t.Errorf("error %v, want one saying the index has other dimensions", err)
		}
	})

	t.Run("reindex", func(t *testing.T) {
		r, err := OpenForReindex(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if id, _ := r.Embedder(); id != fakeEmbedder {
			t.Errorf("OpenForReindex reports embedder %q, want %q", id, fakeEmbedder)
		}
		var done, total int
		next := constEmbedder{"other@2", 4}
		if err := memory.Reindex(ctx, r, next, func(d, n int) { done, total = d, n }); err != nil {
			t.Fatal(err)
		}
		if done != total || total == 0 {
			t.Errorf("progress %d/%d", done, total)
		}
		o, err := Open(ctx, cfg, next.ID(), 4)
		if err != nil {
			t.Fatalf("open with the new embedder after reindex: %v", err)
		}
		defer o.Close()
		hits, err := o.Search(ctx, memory.Query{Namespace: "alice", Text: "x", Vector: unit([]float32{0, 0, 1, 0}), K: 10, Fusion: memory.VectorOnly})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Memory.Embedder != next.ID() {
			t.Errorf("after reindex: %+v", hits)
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

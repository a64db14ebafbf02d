package storetest

import (
	"slices"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
)

// VectorsUpgraded checks that a store's memories embedded by an earlier
// recipe (here: without sentence windows) get the vectors of the current
// one in the background (Service.UpgradeVectors): the same vectors a
// fresh remember makes, the recipe recorded once every memory has them,
// and ReplaceVectors leaving alone what changed since it was read.
// newStorage returns an OpenRecipe over fresh, empty storage.
func VectorsUpgraded(t *testing.T, newStorage func(t *testing.T) OpenRecipe) {
	open := newStorage(t)
	emb := memory.Contextual(&fake.Embedder{Name: "upgrade", N: 32})
	s := &suite{open: func(id string, dims int, any bool) (memory.Store, error) { return open(id, dims, any, "") }}
	fresh, old := storeAsEarlier(t, open, s, emb)

	st, err := open(emb.ID(), emb.Dims(), false, memory.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	awaitUpgrade(t, s, st, emb, fresh)
	st.Close()
	st, err = open(emb.ID(), emb.Dims(), false, memory.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	up := st.(memory.VectorUpgrader)
	if got := up.Recipe(); got != memory.Recipe {
		t.Errorf("reopened after the upgrade, the store reports %q", got)
	}
	replaceVectors(t, st, up, old[0], emb.Dims())
}

// storeAsEarlier remembers two sessions in a store opened with no recipe
// and stores them again as an earlier agentmem did: each memory with its
// turn's vector only. fresh is every memory as a remember makes it now,
// old the memories it cut (the two of sentence windows). It closes the
// store.
func storeAsEarlier(t *testing.T, open OpenRecipe, s *suite, emb memory.Embedder) (fresh, old []memory.Memory) {
	texts := []string{
		"We drove to Oregon last June. The coast was cold but lovely.",
		"Did you see the lighthouse?",
		"Yes! I climbed it at dawn. Then we had chowder in Newport.",
	}
	st, err := open(emb.ID(), emb.Dims(), false, "")
	if err != nil {
		t.Fatal(err)
	}
	svc := s.service(t, st, emb)
	remember(t, svc, "", "trip", "2023-07-01", texts...)
	remember(t, svc, "other", "chat", "2023-07-02", "Hello there.", "Short.")
	svc.Close()
	fresh = exported(t, st)
	// as an earlier agentmem stored them: each memory with its turn's
	// vector only
	for _, m := range fresh {
		if len(m.Vectors) > 1 {
			m.Vectors = m.Vectors[:1]
			old = append(old, m)
		}
	}
	if len(old) != 2 {
		t.Fatalf("%d of the memories have sentence windows; want 2 (the turns of two sentences)", len(old))
	}
	if err := st.Put(ctx, old); err != nil {
		t.Fatal(err)
	}
	st.Close()
	return fresh, old
}

// awaitUpgrade runs Service.UpgradeVectors on st, opened with the current
// recipe over memories of none, waits (up to 20 s) for the recipe to be
// recorded, and checks that every memory then has the vectors of fresh.
func awaitUpgrade(t *testing.T, s *suite, st memory.Store, emb memory.Embedder, fresh []memory.Memory) {
	up, ok := st.(memory.VectorUpgrader)
	if !ok {
		t.Fatalf("%T does not implement memory.VectorUpgrader", st)
	}
	if got := up.Recipe(); got != "" {
		t.Fatalf("a store of memories of no recorded recipe, opened with %s, reports %q", memory.Recipe, got)
	}
	svc := s.service(t, st, emb)
	svc.UpgradeVectors()
	deadline := time.Now().Add(20 * time.Second)
	for up.Recipe() != memory.Recipe {
		if time.Now().After(deadline) {
			t.Fatalf("the upgrade did not record the recipe within 20 s (it reports %q)", up.Recipe())
		}
		time.Sleep(10 * time.Millisecond)
	}
	svc.Close()
	got := exported(t, st)
	if len(got) != len(fresh) {
		t.Fatalf("the store holds %d memories after the upgrade, %d before", len(got), len(fresh))
	}
	for i := range got {
		if !slices.EqualFunc(got[i].Vectors, fresh[i].Vectors, slices.Equal[[]float32]) {
			t.Errorf("memory %s has %d vectors after the upgrade, not the %d a remember makes now", got[i].ID, len(got[i].Vectors), len(fresh[i].Vectors))
		}
	}
}

// replaceVectors checks that ReplaceVectors replaces only what the store
// holds as it was read: not m changed or missing, m itself, and never a
// vector of the wrong dimension.
func replaceVectors(t *testing.T, st memory.Store, up memory.VectorUpgrader, m memory.Memory, dims int) {
	changed := m
	changed.Hash = "another text"
	gone := m
	gone.ID = "no-such-memory"
	n, err := up.ReplaceVectors(ctx, []memory.Memory{changed, gone})
	if err != nil || n != 0 {
		t.Errorf("ReplaceVectors of a changed memory and a missing one replaced %d (err %v); want none", n, err)
	}
	if n, err := up.ReplaceVectors(ctx, []memory.Memory{m}); err != nil || n != 1 {
		t.Errorf("ReplaceVectors of a stored memory replaced %d (err %v); want 1", n, err)
	}
	if got := exported(t, st); !slices.EqualFunc(vectorsOf(got, m.ID), m.Vectors, slices.Equal[[]float32]) {
		t.Errorf("memory %s has %d vectors after ReplaceVectors gave it %d", m.ID, len(vectorsOf(got, m.ID)), len(m.Vectors))
	}
	wrong := m
	wrong.Vectors = [][]float32{make([]float32, dims+1)}
	if _, err := up.ReplaceVectors(ctx, []memory.Memory{wrong}); err == nil {
		t.Error("ReplaceVectors took a vector of the wrong dimension")
	}
}

// exported is every memory of st with its vectors, in export order.
func exported(t *testing.T, st memory.Store) []memory.Memory {
	t.Helper()
	var out []memory.Memory
	if err := st.Export(ctx, "", true, func(m memory.Memory) error {
		out = append(out, m)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// vectorsOf is the vectors of memory id among ms.
func vectorsOf(ms []memory.Memory, id string) [][]float32 {
	for _, m := range ms {
		if m.ID == id {
			return m.Vectors
		}
	}
	return nil
}

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
	texts := []string{
		"We drove to Oregon last June. The coast was cold but lovely.",
		"Did you see the lighthouse?",
		"Yes! I climbed it at dawn. Then we had chowder in Newport.",
	}
	st, err := open(emb.ID(), emb.Dims(), false, "")
	if err != nil {
		t.Fatal(err)
	}
	s := &suite{open: func(id string, dims int, any bool) (memory.Store, error) { return open(id, dims, any, "") }}
	svc := s.service(t, st, emb)
	remember(t, svc, "", "trip", "2023-07-01", texts...)
	remember(t, svc, "other", "chat", "2023-07-02", "Hello there.", "Short.")
	svc.Close()
	fresh := exported(t, st)
	// as an earlier agentmem stored them: each memory with its turn's
	// vector only
	var old []memory.Memory
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

	st, err = open(emb.ID(), emb.Dims(), false, memory.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	up, ok := st.(memory.VectorUpgrader)
	if !ok {
		t.Fatalf("%T does not implement memory.VectorUpgrader", st)
	}
	if got := up.Recipe(); got != "" {
		t.Fatalf("a store of memories of no recorded recipe, opened with %s, reports %q", memory.Recipe, got)
	}
	svc = s.service(t, st, emb)
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
	st.Close()
	st, err = open(emb.ID(), emb.Dims(), false, memory.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	up = st.(memory.VectorUpgrader)
	if got := up.Recipe(); got != memory.Recipe {
		t.Errorf("reopened after the upgrade, the store reports %q", got)
	}

	// ReplaceVectors replaces only what the store holds as it was read
	m := old[0]
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
	wrong.Vectors = [][]float32{make([]float32, emb.Dims()+1)}
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

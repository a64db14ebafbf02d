package storetest

import (
	"testing"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
)

// OpenRecipe opens the same storage as Open, with recipe as the store's
// configured recipe (embedded.Options.Recipe, couchbase.Config.Recipe).
type OpenRecipe func(embedderID string, dims int, anyEmbedder bool, recipe string) (memory.Store, error)

// RecipeRecorded checks that a store records the recipe of its vectors
// when it is empty and when a reindex re-embeds it, and that a store of
// another recipe still opens, reporting the recipe its memories were made
// by. newStorage returns an OpenRecipe over fresh, empty storage.
func RecipeRecorded(t *testing.T, newStorage func(t *testing.T) OpenRecipe) {
	open := newStorage(t)
	emb := &fake.Embedder{Name: "recipe", N: 32}
	s := recipeOnEmpty(t, open, emb)
	reopenedWith(t, open, emb, "r2", "r1", "a store of memories made by r1, opened with r2,")
	recipeReindexed(t, open, emb)
	reopenedWith(t, open, emb, "r2", "r2", "reopened after a reindex with r2, the store")
	recipeEmptied(t, s, open, emb)
	reopenedWith(t, open, emb, "r3", "r3", "refilled after a forget and reopened with r3, the store")
}

// recipeOf is the recipe st reports.
func recipeOf(t *testing.T, st memory.Store) string {
	t.Helper()
	r, ok := st.(memory.RecipeReporter)
	if !ok {
		t.Fatalf("%T does not report its recipe", st)
	}
	return r.Recipe()
}

// reopenedWith opens the storage with recipe r and checks what it
// reports.
func reopenedWith(t *testing.T, open OpenRecipe, emb *fake.Embedder, r, want, what string) {
	t.Helper()
	st, err := open(emb.ID(), emb.Dims(), false, r)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer st.Close()
	if got := recipeOf(t, st); got != want {
		t.Errorf("%s reports %q", what, got)
	}
}

// recipeOnEmpty checks that an empty store opened with recipe r1 records
// it, and remembers a turn in it; it returns the suite over the storage
// opened with r1.
func recipeOnEmpty(t *testing.T, open OpenRecipe, emb *fake.Embedder) *suite {
	st, err := open(emb.ID(), emb.Dims(), false, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if got := recipeOf(t, st); got != "r1" {
		t.Errorf("an empty store opened with recipe r1 records %q", got)
	}
	s := &suite{open: func(id string, dims int, any bool) (memory.Store, error) { return open(id, dims, any, "r1") }, emb: emb}
	remember(t, s.service(t, st, emb), "", "s1", "2023-05-07", "the lake house is in Maine. We go every June.")
	st.Close()
	return s
}

// recipeReindexed checks that a reindex with recipe r2 records it.
func recipeReindexed(t *testing.T, open OpenRecipe, emb *fake.Embedder) {
	st, err := open("", 0, true, "r2")
	if err := memory.Reindex(ctx, reindexer(t, st, err), emb, nil); err != nil {
		t.Fatal(err)
	}
	if got := recipeOf(t, st); got != "r2" {
		t.Errorf("after a reindex with r2 the store reports %q", got)
	}
	st.Close()
}

// recipeEmptied checks that a store of memories made by r2, opened with
// r3, reports r2 until a forget empties it: a store then holds no vectors
// of an earlier recipe, and the recipe it was opened with is recorded at
// once, for what it takes next (a turn remembered then).
func recipeEmptied(t *testing.T, s *suite, open OpenRecipe, emb *fake.Embedder) {
	st, err := open(emb.ID(), emb.Dims(), false, "r3")
	if err != nil {
		t.Fatal(err)
	}
	if got := recipeOf(t, st); got != "r2" {
		t.Errorf("a store of memories made by r2, opened with r3, reports %q", got)
	}
	svc := s.service(t, st, emb)
	if _, err := svc.Forget(ctx, memory.ForgetRequest{All: true, Confirm: true}); err != nil {
		t.Fatal(err)
	}
	if got := recipeOf(t, st); got != "r3" {
		t.Errorf("emptied by a forget, a store opened with r3 reports %q", got)
	}
	remember(t, svc, "", "s2", "2023-05-08", "the boat is blue. It sleeps four.")
	st.Close()
}

// reindexer is st, opened for a reindex (err the open's), as the
// memory.Reindexer it must be.
func reindexer(t *testing.T, st memory.Store, err error) memory.Reindexer {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := st.(memory.Reindexer)
	if !ok {
		st.Close()
		t.Fatalf("%T does not implement memory.Reindexer", st)
	}
	return r
}

package couchbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"
	"github.com/couchbase/gocbcore/v9/memd"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/storetest"
)

// What `agentmem couchbase setup` does on a cluster without Search: the
// scope and the collection, then a clear refusal at the index; again, and
// nothing is created twice.
func TestCavesSetup(t *testing.T) {
	t.Parallel()
	cv := newCaves(t)
	out := cv.setup(t, cv.cfg, 4)
	for _, want := range []string{"scope agentmem.agentmem: created", "collection agentmem.agentmem.memories: created"} {
		if !strings.Contains(out, want) {
			t.Errorf("setup said %q, want %q", out, want)
		}
	}
	err := Setup(context.Background(), cv.cfg, 4, io.Discard)
	if !strings.Contains(err.Error(), "Couchbase Server 7.6 or later") {
		t.Errorf("setup's refusal %q does not say what the index needs", err)
	}
	again := cv.setup(t, cv.cfg, 4)
	if strings.Contains(again, "created") || !strings.Contains(again, "collection agentmem.agentmem.memories: exists") {
		t.Errorf("setup again said %q, want everything to exist", again)
	}
	if _, _, err := cv.Mock.GetBucket(cavesBucket).CollectionManifest().GetByName("agentmem", "memories"); err != nil {
		t.Error("the mock holds no collection agentmem.memories after setup")
	}
}

// cavesService is the memory service on the store on the mock, with a
// fake embedder.
func cavesService(t *testing.T, cv *caves, cfg Config) (*memory.Service, *Store) {
	t.Helper()
	emb := &fake.Embedder{Name: "caves", N: 8}
	st := cv.open(t, cfg, emb.ID(), emb.Dims())
	svc, err := memory.New(memory.Options{Store: st, Embedder: emb, Now: func() time.Time { return cavesNow }})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

var cavesNow = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

func cavesRemember(t *testing.T, svc *memory.Service, ns, sess, date string, texts ...string) memory.RememberResult {
	t.Helper()
	var msgs []memory.Message
	for i, text := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, memory.Message{Role: role, Content: text})
	}
	res, err := svc.Remember(context.Background(), memory.RememberRequest{Namespace: ns, SessionID: sess, SessionDate: date, Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func texts(ms []memory.Memory) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return strings.Join(out, " | ")
}

// Every tool but recall, through the memory service, on the mock: remember
// (one transaction per call), show, sessions, namespaces, export, import,
// forget by ids, by session and for all.
func TestCavesTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cv := newCaves(t)
	svc, _ := cavesService(t, cv, cv.cfg)

	first := cavesRemember(t, svc, "alice", "s-may", "2024-05-03", "I adopted a dog named Biscuit.", "Congratulations!", "He chews shoes.")
	if first.Stored != 3 || !slices.Equal(first.IDs, []string{"s-may:0", "s-may:1", "s-may:2"}) {
		t.Fatalf("remember = %+v", first)
	}
	if again := cavesRemember(t, svc, "alice", "s-may", "2024-05-03", "I adopted a dog named Biscuit.", "Congratulations!", "He chews shoes."); again.Stored != 0 || again.Skipped != 3 {
		t.Errorf("the same session again = %+v, want all skipped", again)
	}
	if more := cavesRemember(t, svc, "alice", "s-may", "", "I adopted a dog named Biscuit.", "Congratulations!", "He chews shoes.", "Get him a toy."); more.Stored != 1 || more.IDs[3] != "s-may:3" {
		t.Errorf("one more turn = %+v", more)
	}
	cavesRemember(t, svc, "alice", "s-june", "2024-06-20", "My sister Carol visits Lisbon.", "Lovely.")
	cavesRemember(t, svc, "bob", "s-x", "2024-05-04", "Our dog won the agility contest.")

	show, err := svc.Session(ctx, "alice", "s-may")
	if err != nil || texts(show) != "I adopted a dog named Biscuit. | Congratulations! | He chews shoes. | Get him a toy." {
		t.Fatalf("show = %q, %v", texts(show), err)
	}
	if show[3].SessionDate.Format(time.DateOnly) != "2024-05-03" {
		t.Errorf("an appended turn is dated %v, want its session's date", show[3].SessionDate)
	}
	page, err := svc.Sessions(ctx, memory.SessionsRequest{Namespace: "alice"})
	if err != nil || len(page.Sessions) != 2 || page.Sessions[0].ID != "s-june" || page.Sessions[1].Turns != 4 {
		t.Fatalf("sessions = %+v, %v; want s-june then s-may of 4 turns", page, err)
	}
	nss, err := svc.Namespaces(ctx)
	if err != nil || len(nss) != 2 || nss[0].Name != "alice" || nss[0].Memories != 6 || nss[1].Sessions != 1 {
		t.Fatalf("namespaces = %+v, %v", nss, err)
	}

	var exported bytes.Buffer
	res, err := svc.Export(ctx, &exported, memory.ExportOptions{Vectors: true})
	if err != nil || res.Memories != 7 || res.Namespaces != 2 {
		t.Fatalf("export = %+v, %v", res, err)
	}
	t.Run("import", func(t *testing.T) { cavesImport(t, cv, exported.Bytes()) })

	forget := func(req memory.ForgetRequest) int {
		t.Helper()
		res, err := svc.Forget(ctx, req)
		if err != nil {
			t.Fatalf("forget %+v: %v", req, err)
		}
		return res.Deleted
	}
	if n := forget(memory.ForgetRequest{Namespace: "alice", IDs: []string{"s-may:1", "s-may:1", "nope:0"}}); n != 1 {
		t.Errorf("forget ids deleted %d, want 1", n)
	}
	if show, _ := svc.Session(ctx, "alice", "s-may"); texts(show) != "I adopted a dog named Biscuit. | He chews shoes. | Get him a toy." {
		t.Errorf("after forgetting a turn, show = %q", texts(show))
	}
	if n := forget(memory.ForgetRequest{Namespace: "alice", SessionID: "s-june"}); n != 2 {
		t.Errorf("forget session deleted %d, want 2", n)
	}
	if n := forget(memory.ForgetRequest{Namespace: "alice", All: true, Confirm: true}); n != 3 {
		t.Errorf("forget all deleted %d, want 3", n)
	}
	var nf *memory.NotFoundError
	if _, err := svc.Sessions(ctx, memory.SessionsRequest{Namespace: "alice"}); !errors.As(err, &nf) {
		t.Errorf("sessions of a forgotten namespace: %v, want not found", err)
	}
	if show, err := svc.Session(ctx, "bob", "s-x"); err != nil || len(show) != 1 {
		t.Errorf("forgetting alice touched bob: %v, %v", show, err)
	}
	if n := cv.docs(t, "alice"); n != 0 {
		t.Errorf("%d documents of alice are left after forget all", n)
	}
}

// cavesImport imports an export into another collection: the same
// memories, the same export, and the same file again stores nothing.
func cavesImport(t *testing.T, cv *caves, file []byte) {
	ctx := context.Background()
	cfg := cv.cfg
	cfg.Collection = "imported"
	svc, _ := cavesService(t, cv, cfg)
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(file)), nil }
	res, err := svc.Import(ctx, open, memory.ImportOptions{})
	if err != nil || res.Imported != 7 || res.Sessions != 3 || res.Reembedded != 0 {
		t.Fatalf("import = %+v, %v", res, err)
	}
	var again bytes.Buffer
	if _, err := svc.Export(ctx, &again, memory.ExportOptions{Vectors: true}); err != nil {
		t.Fatal(err)
	}
	if a, b := body(file), body(again.Bytes()); a != b {
		t.Errorf("the import exports otherwise:\n%s\nwant\n%s", b, a)
	}
	if res, err := svc.Import(ctx, open, memory.ImportOptions{}); err != nil || res.Imported != 0 || res.Skipped != 7 {
		t.Errorf("the same import again = %+v, %v; want all skipped", res, err)
	}
}

// body is an export without its header line (which says when it was made).
func body(file []byte) string {
	_, rest, _ := bytes.Cut(file, []byte("\n"))
	return string(rest)
}

// Every write drops the speakers it may change, whether it succeeded or
// not: a remember, a failed remember, a forget.
func TestCavesSpeakerDrops(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cv := newCaves(t)
	s := cv.open(t, cv.cfg, fakeEmbedder, 4)
	cached := func() bool {
		_, _, ok := s.known.get("alice", time.Now())
		return ok
	}
	fill := func() {
		_, gen, _ := s.known.get("alice", time.Now())
		s.known.put("alice", nsFacts{speakers: []string{"Alice", "Carol"}}, gen, time.Now())
	}
	ms := fixture()
	fill()
	if err := s.Put(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if cached() {
		t.Error("a remember kept the speakers it may have changed")
	}
	fill()
	cv.SetFault(refuseWrites(kindMemory+sep, memd.StatusAccessError))
	err := s.Put(ctx, batch(2))
	cv.SetFault(nil)
	if err == nil {
		t.Fatal("Put succeeded with its writes refused")
	}
	if cached() {
		t.Error("a failed remember kept the speakers")
	}
	fill()
	if _, err := s.Delete(ctx, memory.Selector{Namespace: "alice", IDs: []string{"s-may:0"}}); err != nil {
		t.Fatal(err)
	}
	if cached() {
		t.Error("a forget kept the speakers")
	}
	fill()
	if _, err := s.Delete(ctx, memory.Selector{Namespace: "bob", All: true}); err != nil {
		t.Fatal(err)
	}
	if !cached() {
		t.Error("a forget of bob dropped alice's speakers")
	}
}

// The store conformance suite's cases that need no search, on the mock:
// each case a fresh collection.
func TestCavesConformance(t *testing.T) {
	t.Parallel()
	cv := newCaves(t)
	n := 0
	storetest.RunKeyValue(t, func(t *testing.T) storetest.Open {
		cfg := cv.cfg
		n++
		cfg.Collection = fmt.Sprintf("conformance%d", n)
		// no case here tests a connection's fault: every open waits as
		// long as setup's for the mock's bucket, which once took over 3 s
		// to open again on a machine loaded by every package's tests
		cfg.ConnectTimeout = max(cfg.ConnectTimeout, 15*time.Second)
		setup := false
		return func(id string, dims int, any bool) (memory.Store, error) {
			if !setup {
				cv.setup(t, cfg, dims)
				setup = true
			}
			if any {
				return OpenForReindex(context.Background(), cfg)
			}
			return Open(context.Background(), cfg, id, dims)
		}
	})
}

// The Couchbase store's memories of an earlier recipe get the current
// one's vectors in the background, on the mock.
func TestCavesVectorsUpgraded(t *testing.T) {
	t.Parallel()
	storetest.VectorsUpgraded(t, recipeStorage(newCaves(t), "upgrade"))
}

// The Couchbase store records the recipe of its vectors, on the mock.
func TestCavesRecipeRecorded(t *testing.T) {
	t.Parallel()
	storetest.RecipeRecorded(t, recipeStorage(newCaves(t), "recipe"))
}

// recipeStorage gives storetest a collection of cv, set up at its first
// open, that each open gives a recipe (anyEmbedder: as a reindex opens it).
func recipeStorage(cv *caves, collection string) func(t *testing.T) storetest.OpenRecipe {
	return func(t *testing.T) storetest.OpenRecipe {
		cfg := cv.cfg
		cfg.Collection = collection
		cfg.ConnectTimeout = max(cfg.ConnectTimeout, 15*time.Second)
		setup := false
		return func(id string, dims int, any bool, recipe string) (memory.Store, error) {
			if !setup {
				cv.setup(t, cfg, 32)
				setup = true
			}
			cfg.Recipe = recipe
			if any {
				return OpenForReindex(context.Background(), cfg)
			}
			return Open(context.Background(), cfg, id, dims)
		}
	}
}

// A reindex rewrites a memory's searchable fields as this version derives
// them: a document an earlier agentmem wrote, without kinds, gains them.
func TestCavesReindexDerivesKinds(t *testing.T) {
	t.Parallel()
	cv := newCaves(t)
	cfg := cv.cfg
	cfg.Collection = "reindexkinds"
	s := cv.open(t, cfg, "e1", 2)
	ctx := context.Background()
	m := memory.Memory{ID: "s:0", Namespace: "n", SessionID: "s", SessionDate: time.Date(2023, 8, 13, 0, 0, 0, 0, time.UTC),
		Role: "user", Text: "We drove all the way to Oregon.", Embedder: "e1", Vectors: [][]float32{{1, 0}}}
	if err := s.Put(ctx, []memory.Memory{m}); err != nil {
		t.Fatal(err)
	}
	k := memoryKey("n", "s:0")
	doc := func() memoryDoc {
		t.Helper()
		got, err := s.memories(ctx, []string{k})
		if err != nil || len(got) != 1 {
			t.Fatalf("reading %s: %v %v", k, got, err)
		}
		return got[k]
	}
	old := doc()
	if !strings.Contains(old.Kinds, "state") {
		t.Fatalf("a stored memory's kinds = %q, want Oregon's state among them", old.Kinds)
	}
	old.Kinds = "" // as an agentmem before hybrid.DocVersion 7 wrote it
	if _, err := s.coll.Replace(k, old, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, err := OpenForReindex(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Reindex(ctx, "e2", 2, func(_ context.Context, ms []memory.Memory) error {
		for i := range ms {
			ms[i].Vectors, ms[i].Embedder = [][]float32{{0, 1}}, "e2"
		}
		return nil
	}, nil); err != nil {
		t.Fatal(err)
	}
	s = r
	if got := doc(); !strings.Contains(got.Kinds, "state") || got.Embedder != "e2" {
		t.Errorf("after reindex: kinds %q, embedder %q; want Oregon's state and e2", got.Kinds, got.Embedder)
	}
}

// A memory rewritten between the upgrade's read and its vector write
// keeps what it has: the write by the stale CAS is skipped, not an error
// (gocb reports a subdocument write's CAS mismatch as a document that
// exists), and the vectors written by a current CAS are the memory's.
func TestCavesStaleVectorWriteSkipped(t *testing.T) {
	t.Parallel()
	cv := newCaves(t)
	cfg := cv.cfg
	cfg.Collection = "stale"
	svc, st := cavesService(t, cv, cfg)
	defer st.Close()
	res := cavesRemember(t, svc, "n", "s", "2024-05-01", "The lighthouse is white.")
	k := memoryKey("n", res.IDs[0])
	ctx := context.Background()
	read, err := st.coll.Get(k, nil)
	if err != nil {
		t.Fatal(err)
	}
	// gocaves makes a CAS of the clock to 65 µs and of bits 8 to 15 of a
	// counter (mockdb.GenerateNewCas), so a write soon after another may
	// keep its CAS, which the server never does: rewritten until the CAS
	// is another, as the server's would be (under load this flaked)
	for i := 0; ; i++ {
		w, err := st.coll.MutateIn(k, []gocb.MutateInSpec{gocb.UpsertSpec("key", "rewritten", nil)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w.Cas() != read.Cas() {
			break
		}
		if i == 100 {
			t.Fatalf("the mock kept CAS %d over 100 writes", w.Cas())
		}
		time.Sleep(100 * time.Microsecond)
	}
	vs := [][]float32{make([]float32, 8)}
	vs[0][0] = 1
	if ok, err := st.writeVectors(ctx, k, vs, read.Cas()); ok || err != nil {
		t.Fatalf("a vector write by a stale CAS: wrote %v, err %v; want skipped", ok, err)
	}
	now, err := st.coll.Get(k, nil)
	if err != nil {
		t.Fatal(err)
	}
	var d memoryDoc
	if err := now.Content(&d); err != nil {
		t.Fatal(err)
	}
	if d.Key != "rewritten" || len(d.Vector) != 1 || d.Vector[0][0] == 1 {
		t.Fatalf("after a skipped write the memory holds key %q and vectors %v", d.Key, d.Vector)
	}
	if ok, err := st.writeVectors(ctx, k, vs, now.Cas()); !ok || err != nil {
		t.Fatalf("a vector write by the current CAS: wrote %v, err %v", ok, err)
	}
	if err := mustGet(t, st, k).Content(&d); err != nil || d.Key != "rewritten" || d.Vector[0][0] != 1 {
		t.Errorf("after the write the memory holds key %q and vectors %v (err %v); want its key kept and the new vectors", d.Key, d.Vector, err)
	}
}

func mustGet(t *testing.T, st *Store, k string) *gocb.GetResult {
	t.Helper()
	r, err := st.coll.Get(k, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// RecordRecipe leaves the meta document as it is when it names another
// embedder than the server's (another server reindexed the collection
// meanwhile), with an error the upgrade stops on.
func TestCavesRecordRecipeKeepsAnotherEmbedder(t *testing.T) {
	t.Parallel()
	cv := newCaves(t)
	cfg := cv.cfg
	cfg.Collection = "other"
	cfg.Recipe = "r2"
	st := cv.open(t, cfg, "e1", 8)
	defer st.Close()
	other := metaDoc{Type: typeMeta, Embedder: "e2", Dims: 16, Recipe: "r1", Updated: time.Now().UTC()}
	if _, err := st.coll.Upsert(metaKey, other, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.RecordRecipe(context.Background()); !errors.Is(err, memory.ErrEmbedderMismatch) {
		t.Fatalf("RecordRecipe over another embedder's meta: %v; want ErrEmbedderMismatch", err)
	}
	var meta metaDoc
	if err := mustGet(t, st, metaKey).Content(&meta); err != nil || meta.Embedder != "e2" || meta.Recipe != "r1" {
		t.Errorf("the meta document now names %q, recipe %q (err %v); want it left as it was", meta.Embedder, meta.Recipe, err)
	}
}

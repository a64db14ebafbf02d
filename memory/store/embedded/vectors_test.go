package embedded_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

const vdims = 32

// unit is a random unit vector.
func unit(r *rand.Rand) []float32 {
	v := make([]float32, vdims)
	var n float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		n += float64(v[i] * v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// mems makes n memories of ns over sessions of 10 turns, one in four with
// two windows.
func mems(r *rand.Rand, ns string, from, n int) []memory.Memory {
	out := make([]memory.Memory, n)
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range out {
		t := from + i
		session := fmt.Sprint("s", t/10)
		m := memory.Memory{ID: memory.MemoryID(session, t%10), Namespace: ns, SessionID: session, SessionDate: day.AddDate(0, 0, t/10), Turn: t % 10,
			Role: "user", Text: fmt.Sprint("turn ", t), Embedder: "test", Vectors: [][]float32{unit(r)}}
		if t%4 == 0 {
			m.Vectors = append(m.Vectors, unit(r))
		}
		out[i] = m
	}
	return out
}

type logBuf struct{ bytes.Buffer }

func openVec(t *testing.T, dir string, log *logBuf) *embedded.Store {
	t.Helper()
	opts := embedded.Options{EmbedderID: "test", Dims: vdims, NoSync: true}
	if log != nil {
		opts.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	st, err := embedded.Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

type vecFound struct {
	ID    string
	Score float64
}

// answers runs the same vector-only searches (some filtered) and returns
// what they found.
func answers(t *testing.T, st *embedded.Store, ns string) [][]vecFound {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	var out [][]vecFound
	for i := range 12 {
		q := memory.Query{Namespace: ns, Vector: unit(r), K: 10, Fusion: memory.VectorOnly}
		switch i % 3 {
		case 1:
			q.SessionID = "s3"
		case 2:
			q.After = time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC)
		}
		hits, err := st.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var fs []vecFound
		for _, h := range hits {
			fs = append(fs, vecFound{h.Memory.ID, h.Score})
		}
		out = append(out, fs)
	}
	return out
}

// rebuilt is what a store answers when it reads every vector from the
// records (its snapshots removed): the reference.
func rebuilt(t *testing.T, dir string, nss ...string) map[string][][]vecFound {
	t.Helper()
	ref := t.TempDir()
	if err := os.CopyFS(ref, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(ref, "vectors"))
	st := openVec(t, ref, nil)
	defer st.Close()
	out := map[string][][]vecFound{}
	for _, ns := range nss {
		out[ns] = answers(t, st, ns)
	}
	return out
}

func put(t *testing.T, st *embedded.Store, ms []memory.Memory) {
	t.Helper()
	if err := st.Put(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
}

func check(t *testing.T, what string, st *embedded.Store, want map[string][][]vecFound) {
	t.Helper()
	for ns, w := range want {
		if got := answers(t, st, ns); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: namespace %s answers\n%v\nwant (from the records)\n%v", what, ns, got, w)
		}
		if len(w[0]) != 10 {
			t.Fatalf("%s: the reference vecFound %d memories", what, len(w[0]))
		}
	}
}

// snapshotted is a closed store of namespaces "a" (200 memories), "b" (80)
// and "small" (20: below a snapshot minimum of 50), with the generator
// that made them, seeded with seed.
func snapshotted(t *testing.T, seed uint64) (string, *rand.Rand) {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(seed, seed+1))
	st := openVec(t, dir, nil)
	put(t, st, mems(r, "a", 0, 200))
	put(t, st, mems(r, "b", 0, 80))
	put(t, st, mems(r, "small", 0, 20))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, r
}

// Snapshots are saved at close and used at open; a stale one is brought
// up to date from the journal; a damaged, foreign or unreachable one is
// rebuilt from the records; every way, the answers are those of a store
// that read the records.
func TestVectorSnapshots(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	dir, r := snapshotted(t, 1)
	snaps, _ := filepath.Glob(filepath.Join(dir, "vectors", "*.snap"))
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots after close, want 2 (a, b)", len(snaps))
	}
	old := t.TempDir()
	os.CopyFS(filepath.Join(old, "vectors"), os.DirFS(filepath.Join(dir, "vectors")))
	want := rebuilt(t, dir, "a", "b", "small")

	var log logBuf
	st := openVec(t, dir, &log)
	if strings.Contains(log.String(), "not used") || !strings.Contains(log.String(), "vectors loaded from snapshots") {
		t.Fatalf("the snapshots were not used:\n%s", log.String())
	}
	check(t, "from snapshots", st, want)

	// writes and deletes after the snapshots
	put(t, st, mems(r, "a", 190, 40)) // 10 replaced, 30 new
	if _, err := st.Delete(context.Background(), memory.Selector{Namespace: "a", SessionID: "s2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Delete(context.Background(), memory.Selector{Namespace: "b", IDs: []string{"s1:1", "s4:0"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	want = rebuilt(t, dir, "a", "b", "small")

	// the old snapshots, as a crash before the close would have left them
	os.RemoveAll(filepath.Join(dir, "vectors"))
	os.CopyFS(filepath.Join(dir, "vectors"), os.DirFS(filepath.Join(old, "vectors")))
	log.Reset()
	st = openVec(t, dir, &log)
	if strings.Contains(log.String(), "not used") {
		t.Fatalf("stale snapshots were not brought up to date from the journal:\n%s", log.String())
	}
	check(t, "stale snapshots caught up", st, want)
	st.Close()

	// this open pruned the journal to the snapshots the close above wrote:
	// the old ones can no longer be brought up to date
	st = openVec(t, dir, nil)
	st.Close()
	os.RemoveAll(filepath.Join(dir, "vectors"))
	os.CopyFS(filepath.Join(dir, "vectors"), os.DirFS(filepath.Join(old, "vectors")))
	log.Reset()
	st = openVec(t, dir, &log)
	if !strings.Contains(log.String(), "journal no longer reaches back") {
		t.Errorf("snapshots older than the journal were not rebuilt:\n%s", log.String())
	}
	check(t, "snapshots older than the journal", st, want)
	st.Close()

	// damaged: one byte of a's snapshot flipped
	snaps, _ = filepath.Glob(filepath.Join(dir, "vectors", "*.snap"))
	for _, p := range snaps {
		b, _ := os.ReadFile(p)
		b[len(b)/2] ^= 0x40
		os.WriteFile(p, b, 0o600)
	}
	log.Reset()
	st = openVec(t, dir, &log)
	if !strings.Contains(log.String(), "damaged") {
		t.Errorf("damaged snapshots were not rebuilt:\n%s", log.String())
	}
	check(t, "damaged snapshots", st, want)
	st.Close()

	// foreign: another store's snapshots of the same namespaces
	other := t.TempDir()
	st2 := openVec(t, other, nil)
	put(t, st2, mems(rand.New(rand.NewPCG(9, 9)), "a", 0, 200))
	st2.Close()
	os.RemoveAll(filepath.Join(dir, "vectors"))
	os.CopyFS(filepath.Join(dir, "vectors"), os.DirFS(filepath.Join(other, "vectors")))
	log.Reset()
	st = openVec(t, dir, &log)
	if !strings.Contains(log.String(), "another store") {
		t.Errorf("another store's snapshots were not rebuilt:\n%s", log.String())
	}
	check(t, "foreign snapshots", st, want)
	st.Close()
}

// A namespace that grows by half its size saves its snapshot during the
// writes, so a process killed rather than closed re-reads little.
func TestVectorSnapshotDuringWrites(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	st := openVec(t, dir, nil)
	defer st.Close()
	for i := 0; i < 300; i += 30 {
		put(t, st, mems(r, "a", i, 30))
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, "vectors", "*.snap"))
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots while writing 300 memories, want 1", len(snaps))
	}
}

// Running the text and vector sides at the same time gives the same fused
// result as running them one after the other.
func TestSearchConcurrentSides(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	st := openVec(t, dir, nil)
	defer st.Close()
	ms := mems(r, "a", 0, 300)
	for i := range ms {
		ms[i].Text = sentence(r, 12)
	}
	put(t, st, ms)
	for _, fusion := range []memory.Fusion{memory.RRF, memory.RSF} {
		for i := range 10 {
			q := memory.Query{Namespace: "a", Text: sentence(r, 6), Vector: unit(r), K: 10, Fusion: fusion}
			embedded.SetSequential(true)
			seq, err := st.Search(context.Background(), q)
			embedded.SetSequential(false)
			if err != nil {
				t.Fatal(err)
			}
			conc, err := st.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(seq) == 0 || !reflect.DeepEqual(seq, conc) {
				t.Errorf("%s query %d: concurrent\n%v\nsequential\n%v", fusion, i, conc, seq)
			}
			var text, vec bool
			for _, h := range conc {
				text = text || h.TextRank > 0
				vec = vec || h.VectorRank > 0
			}
			if !text || !vec {
				t.Errorf("%s query %d: the fused result lacks a side (text %v, vector %v)", fusion, i, text, vec)
			}
		}
	}
}

// Vectors made in the background (for memories stored pending) are
// journalled: a snapshot saved before them, left as a crash would leave
// it, is brought up to date at open rather than used without them.
func TestBackgroundVectorsReachStaleSnapshots(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	storePending(t, dir, r)
	old := t.TempDir()
	os.CopyFS(filepath.Join(old, "vectors"), os.DirFS(filepath.Join(dir, "vectors")))
	setPending(t, dir, r)
	want := rebuilt(t, dir, "a")

	os.RemoveAll(filepath.Join(dir, "vectors"))
	os.CopyFS(filepath.Join(dir, "vectors"), os.DirFS(filepath.Join(old, "vectors")))
	st := openVec(t, dir, nil)
	defer st.Close()
	check(t, "a snapshot from before the background vectors", st, want)
}

// Vectors replaced while the store serves (ReplaceVectors: the upgrade of
// an earlier recipe's vectors) are journalled: a snapshot saved before
// them, left as a crash would leave it, is brought up to date at open.
func TestReplacedVectorsReachStaleSnapshots(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	st := openVec(t, dir, nil)
	put(t, st, mems(r, "a", 0, 140))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	before := rebuilt(t, dir, "a")
	old := t.TempDir()
	os.CopyFS(filepath.Join(old, "vectors"), os.DirFS(filepath.Join(dir, "vectors")))

	st = openVec(t, dir, nil)
	var ms []memory.Memory
	st.Export(context.Background(), "a", true, func(m memory.Memory) error {
		if len(ms) < 40 {
			m.Vectors = append(m.Vectors, unit(r), unit(r))
			ms = append(ms, m)
		}
		return nil
	})
	if n, err := st.ReplaceVectors(context.Background(), ms); err != nil || n != 40 {
		t.Fatalf("ReplaceVectors replaced %d of 40 (err %v)", n, err)
	}
	check(t, "right after ReplaceVectors", st, rebuilt(t, dir, "a"))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	want := rebuilt(t, dir, "a")
	if reflect.DeepEqual(want, before) {
		t.Fatal("the replaced vectors change no answer: the test shows nothing")
	}
	st = openVec(t, dir, nil)
	check(t, "the snapshot saved after ReplaceVectors", st, want)
	st.Close()

	os.RemoveAll(filepath.Join(dir, "vectors"))
	os.CopyFS(filepath.Join(dir, "vectors"), os.DirFS(filepath.Join(old, "vectors")))
	st = openVec(t, dir, nil)
	defer st.Close()
	check(t, "a snapshot from before ReplaceVectors", st, want)
}

// A namespace past the approximate threshold keeps its inverted file in
// step with puts and deletes, from a snapshot too, and its vector side
// keeps recall@10 >= 0.98 against an exact scan of the stored vectors.
func TestVectorApproximate(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(100))
	defer embedded.SetApproxAt(embedded.SetApproxAt(1500))
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	topics := make([][]float32, 40)
	for i := range topics {
		topics[i] = unit(r)
	}
	// clustered: a topic per session plus detail, as embeddings of
	// conversations are
	clustered := func(ms []memory.Memory) []memory.Memory {
		for i := range ms {
			tp := topics[(i/10*7)%len(topics)]
			for w := range ms[i].Vectors {
				v := unit(r)
				var n float64
				for d := range v {
					v[d] = 0.8*tp[d] + 0.45*v[d]
					n += float64(v[d] * v[d])
				}
				for d := range v {
					v[d] /= float32(math.Sqrt(n))
				}
				ms[i].Vectors[w] = v
			}
		}
		return ms
	}
	exact := func(st *embedded.Store, q []float32) []string {
		type hit struct {
			id string
			s  float32
		}
		best := map[string]float32{}
		st.Export(context.Background(), "a", true, func(m memory.Memory) error {
			for _, v := range m.Vectors {
				var s float32
				for d := range v {
					s += v[d] * q[d]
				}
				if old, ok := best[m.ID]; !ok || s > old {
					best[m.ID] = s
				}
			}
			return nil
		})
		var hs []hit
		for id, s := range best {
			hs = append(hs, hit{id, s})
		}
		slices.SortFunc(hs, func(a, b hit) int {
			if a.s != b.s {
				return cmp.Compare(b.s, a.s)
			}
			return strings.Compare(a.id, b.id)
		})
		var out []string
		for _, h := range hs[:10] {
			out = append(out, h.id)
		}
		return out
	}
	measure := func(what string, st *embedded.Store) {
		t.Helper()
		if vs := st.VectorStats("a"); !vs.Approximate || vs.Probe >= vs.Lists {
			t.Fatalf("%s: %d windows, inverted file %v, probing %d of %d lists: not approximate", what, vs.Rows, vs.Approximate, vs.Probe, vs.Lists)
		}
		var sum float64
		const n = 30
		for range n {
			q := clustered([]memory.Memory{{Vectors: [][]float32{nil}}})[0].Vectors[0]
			got, err := st.NearestVectors("a", q, 10)
			if err != nil {
				t.Fatal(err)
			}
			want := exact(st, q)
			hit := 0
			for _, id := range got {
				if slices.Contains(want, id) {
					hit++
				}
			}
			sum += float64(hit) / 10
		}
		if rec := sum / n; rec < 0.98 {
			t.Errorf("%s: recall@10 %.3f, want >= 0.98", what, rec)
		} else {
			t.Logf("%s: recall@10 %.3f (%+v)", what, rec, st.VectorStats("a"))
		}
	}
	st := openVec(t, dir, nil)
	put(t, st, clustered(mems(r, "a", 0, 2000)))
	measure("after the build", st)
	put(t, st, clustered(mems(r, "a", 1900, 300))) // 100 replaced
	if _, err := st.Delete(context.Background(), memory.Selector{Namespace: "a", SessionID: "s7"}); err != nil {
		t.Fatal(err)
	}
	measure("after puts and deletes", st)
	st.Close()
	st = openVec(t, dir, nil)
	measure("from the snapshot", st)
	put(t, st, clustered(mems(r, "a", 2200, 100)))
	measure("from the snapshot, then puts", st)
	st.Close()

	// from the records: the inverted file is built once, on every row,
	// not at the threshold and again at each doubling
	os.RemoveAll(filepath.Join(dir, "vectors"))
	defer embedded.SetApproxAt(embedded.SetApproxAt(400))
	st = openVec(t, dir, nil)
	defer st.Close()
	if vs := st.VectorStats("a"); vs.Trained != vs.Rows {
		t.Fatalf("from the records: lists trained on %d of %d windows", vs.Trained, vs.Rows)
	}
	measure("from the records", st)
}

// A namespace nobody writes to keeps its snapshot file, and the manifest
// advances how far it is known unchanged, so the journal need not be kept
// back to that file's stamp for ever.
func TestVectorSnapshotUntouchedNamespace(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(8, 9))
	st := openVec(t, dir, nil)
	put(t, st, mems(r, "a", 0, 100))
	put(t, st, mems(r, "b", 0, 100))
	st.Close()
	type entry struct {
		File           string
		Stamp, Through uint64
	}
	manifest := func() map[string]entry {
		var mf struct{ Namespaces map[string]entry }
		raw, err := os.ReadFile(filepath.Join(dir, "vectors", "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &mf); err != nil {
			t.Fatal(err)
		}
		return mf.Namespaces
	}
	first := manifest()
	for i := range 3 {
		st = openVec(t, dir, nil)
		put(t, st, mems(r, "b", 100+10*i, 10))
		st.Close()
	}
	m := manifest()
	if m["a"].Stamp != first["a"].Stamp {
		t.Errorf("a's snapshot was rewritten (stamp %d, was %d) though a did not change", m["a"].Stamp, first["a"].Stamp)
	}
	if m["a"].Through != m["b"].Stamp || m["a"].Through <= first["a"].Through {
		t.Errorf("a is known unchanged through %d; b was saved at %d (a's first through: %d)", m["a"].Through, m["b"].Stamp, first["a"].Through)
	}
	want := rebuilt(t, dir, "a", "b")
	var log logBuf
	st = openVec(t, dir, &log)
	defer st.Close()
	if strings.Contains(log.String(), "not used") {
		t.Errorf("a snapshot was not used:\n%s", log.String())
	}
	check(t, "untouched namespace", st, want)
}

// Vectors made in the background journal entries that change no text, and
// a close trims the journal past them. The next server's first call being
// a write, its namespace's index (last opened before those entries) must
// be taken as up to date, not rebuilt: it was rebuilt from the records
// for nothing when it was first checked after the write had replaced the
// records' note of the namespace's last text change with its own.
func TestWriteAfterBackgroundVectorsNoRebuild(t *testing.T) {
	defer embedded.SetSnapshotMin(embedded.SetSnapshotMin(50))
	ctx := context.Background()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	storePending(t, dir, r)
	setPending(t, dir, r)
	for round, first := range []string{"remember", "forget"} {
		var logs logBuf
		st := openVec(t, dir, &logs)
		if first == "remember" {
			put(t, st, mems(r, "a", 140+round, 1))
		} else if _, err := st.Delete(ctx, memory.Selector{Namespace: "a", IDs: []string{memory.MemoryID("s0", 0)}}); err != nil {
			t.Fatal(err)
		}
		hits, err := st.Search(ctx, memory.Query{Namespace: "a", Text: "turn", K: 200, Pool: 200, Fusion: memory.TextOnly})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(logs.String(), "rebuil") {
			t.Errorf("first call %s: the text index was rebuilt:\n%s", first, logs.String())
		}
		if want := 141 - round; len(hits) != want {
			t.Errorf("after the first call %s: %d memories found, want %d", first, len(hits), want)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// storePending stores, in namespace a of dir, 100 memories with vectors
// and 40 pending (their vectors to be made in the background), and closes.
func storePending(t *testing.T, dir string, r *rand.Rand) {
	t.Helper()
	st := openVec(t, dir, nil)
	put(t, st, mems(r, "a", 0, 100))
	pending := mems(r, "a", 100, 40)
	for i := range pending {
		pending[i].Embedder, pending[i].Vectors = "", nil
	}
	put(t, st, pending)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// setPending opens dir, gives the 40 pending memories storePending left
// their vectors, as the background filler does, and closes.
func setPending(t *testing.T, dir string, r *rand.Rand) {
	t.Helper()
	st := openVec(t, dir, nil)
	ms, err := st.PendingVectors(context.Background(), 100)
	if err != nil || len(ms) != 40 {
		t.Fatalf("pending = %d memories, %v; want 40", len(ms), err)
	}
	for i := range ms {
		ms[i].Embedder, ms[i].Vectors = "test", [][]float32{unit(r)}
	}
	if err := st.SetVectors(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

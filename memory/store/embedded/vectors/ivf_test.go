package vectors

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"unsafe"
)

func meanRecall(t *testing.T, x *Index, ref map[string]genMem, qs [][]float32, f Filter) float64 {
	t.Helper()
	var sum float64
	for _, q := range qs {
		got, err := x.Search(q, 30, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			m := ref[r.ID]
			if (f.After != 0 && m.date < f.After) || (f.Before != 0 && m.date > f.Before) || (f.Session != "" && m.session != f.Session) {
				t.Fatalf("result %s (session %s, date %d) is outside filter %+v", r.ID, m.session, m.date, f)
			}
		}
		want := brute(ref, q, 10, f)
		sum += recall(got[:min(10, len(got))], want)
	}
	return sum / float64(len(qs))
}

// checkIVF verifies the inverted file: every live row in exactly one list,
// at the position it records; no free row in any.
func checkIVF(t *testing.T, x *Index) {
	t.Helper()
	v := x.ivf
	n := 0
	for l, list := range v.lists {
		for p, r := range list {
			if x.rows[r].mem < 0 || v.of[r] != int32(l) || v.pos[r] != int32(p) {
				t.Fatalf("list %d position %d: row %d (live %v) records list %d position %d", l, p, r, x.rows[r].mem >= 0, v.of[r], v.pos[r])
			}
			m := v.lmeta[l][p]
			ri := &x.rows[r]
			if !slices.Equal(v.lcodes[l][p*x.stride:(p+1)*x.stride], x.rowI8(r)) || m != (listRow{ri.mem, ri.sum, ri.scale, ri.resid, ri.norm}) {
				t.Fatalf("list %d position %d: its copy of row %d differs from the row", l, p, r)
			}
			n++
		}
		if lc := v.lcodes[l]; cap(lc) > 0 && offHeapHere() && !within(lc, v.m) && !within(lc, v.own[l]) {
			t.Fatalf("list %d: its codes lie on the heap, not in a mapping", l)
		}
		if len(v.lcodes[l]) != len(list)*x.stride || len(v.lmeta[l]) != len(list) {
			t.Fatalf("list %d: %d rows, %d codes, %d scalars", l, len(list), len(v.lcodes[l]), len(v.lmeta[l]))
		}
	}
	if n != x.live {
		t.Fatalf("%d rows in lists, %d live", n, x.live)
	}
}

// offHeapHere says whether this system gives anonymous mappings (where it
// does not, the index keeps everything on the heap).
var offHeapHere = sync.OnceValue(func() bool { return anonMapping(pageSize) != nil })

// within says whether c's first element lies in m.
func within(c []int8, m *mapping) bool {
	if m == nil || cap(c) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.SliceData(c))), uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
	return p >= lo && p < lo+uintptr(len(m.data))
}

// The inverted file keeps recall@10 >= 0.98 against the exact scan, through
// the build at the threshold, adds, deletes, replacements, a retrain when
// the rows double, and filters that leave most rows; selective filters
// scan exactly; below half the threshold the index is exact again.
func TestApproxRecall(t *testing.T) {
	c := newCorpus(48, 60, 9)
	x := mustNew(t, 48, Options{ApproxAt: 2000})
	ref := map[string]genMem{}
	ms := c.memories(3000, "")
	add(t, x, ref, ms[:1500]...)
	if !x.Approximate() {
		t.Fatalf("no inverted file at %d rows, ApproxAt 2000", x.Rows())
	}
	first := x.ivf
	add(t, x, ref, ms[1500:]...)
	if x.ivf == first {
		t.Fatalf("not retrained at %d rows (trained at %d)", x.Rows(), first.trained)
	}
	checkIVF(t, x)
	qs := c.queries(100)
	if st := x.Stats(); st.Probe >= st.Lists {
		t.Errorf("topics: calibration probes all %d lists", st.Lists)
	}
	if r := meanRecall(t, x, ref, qs, Filter{}); r < 0.98 {
		t.Errorf("recall@10 after build: %.3f, want >= 0.98", r)
	} else {
		t.Logf("recall@10 after build: %.3f (probe %d of %d)", r, x.Stats().Probe, x.Stats().Lists)
	}
	// of its 100 searches, the first tuneMin were checked, then one in
	// tuneEvery: the 32nd, 64th and 96th (Stats.Checked)
	if st, want := x.Stats(), tuneMin+len(qs)/tuneEvery-tuneMin/tuneEvery; st.Probe < st.Lists && st.Checked != want {
		t.Errorf("%d searches checked, want %d", st.Checked, want)
	}

	rnd := rand.New(rand.NewPCG(9, 9))
	for i, m := range ms {
		switch {
		case i%7 == 0:
			x.Remove(m.id)
			delete(ref, m.id)
		case i%11 == 0:
			m.windows = c.memories(1, "r")[0].windows
			add(t, x, ref, m)
		}
	}
	add(t, x, ref, c.memories(500, "new")...)
	checkIVF(t, x)
	if r := meanRecall(t, x, ref, qs, Filter{}); r < 0.98 {
		t.Errorf("recall@10 after deletes and replacements: %.3f, want >= 0.98", r)
	} else {
		t.Logf("recall@10 after deletes and replacements: %.3f", r)
	}

	var lo, hi int64
	for _, m := range ref {
		if lo == 0 || m.date < lo {
			lo = m.date
		}
		hi = max(hi, m.date)
	}
	wide := Filter{After: lo + (hi-lo)/4}
	cf, _ := x.compile(wide)
	if x.estimatePassing(&cf) < x.opts.ApproxAt {
		t.Fatalf("the wide filter passes only ~%d rows", x.estimatePassing(&cf))
	}
	if r := meanRecall(t, x, ref, qs, wide); r < 0.98 {
		t.Errorf("recall@10 with a wide date filter: %.3f, want >= 0.98", r)
	} else {
		t.Logf("recall@10 with a wide date filter: %.3f", r)
	}
	// selective filters (a session, a short date range) scan, exactly
	checkExact(t, x, ref, qs[:20], rnd)
	var sess string
	for _, m := range ref {
		sess = m.session
		break
	}
	for _, narrow := range []Filter{{After: lo + (hi-lo)/2, Before: lo + (hi-lo)/2 + (hi-lo)/50}, {Session: sess}} {
		for _, q := range qs[:20] {
			got, _ := x.Search(q, 30, narrow)
			if want := brute(ref, q, 30, narrow); !equal(got, want) {
				t.Fatalf("filter %+v: got %v, want %v", narrow, head(got), head(want))
			}
		}
	}

	// removing most memories drops the inverted file; what is left is exact
	var ids []string
	for id := range ref {
		if len(ids) < len(ref)-500 {
			ids = append(ids, id)
		}
	}
	x.Remove(ids...)
	for _, id := range ids {
		delete(ref, id)
	}
	if x.Approximate() {
		t.Fatalf("inverted file kept with %d rows, ApproxAt %d", x.Rows(), x.opts.ApproxAt)
	}
	checkExact(t, x, ref, qs[:20], rnd)
}

// Searches run concurrently with each other (the store holds a read lock):
// they share nothing mutable, and answer as they do alone.
func TestConcurrentSearch(t *testing.T) {
	c := newCorpus(32, 20, 13)
	x := mustNew(t, 32, Options{ApproxAt: 1000})
	ref := map[string]genMem{}
	add(t, x, ref, c.memories(1500, "")...)
	if !x.Approximate() {
		t.Fatal("want an inverted file")
	}
	qs := c.queries(30)
	fs := filters(rand.New(rand.NewPCG(13, 13)), ref)
	want := make([][]Result, len(qs))
	for i, q := range qs {
		want[i], _ = x.Search(q, 20, fs[i%len(fs)])
	}
	errs := make(chan string, 4)
	done := make(chan bool)
	for w := range 4 {
		go func() {
			defer func() { done <- true }()
			for rep := range 5 {
				for i := range qs {
					i := (i + w + rep) % len(qs)
					got, err := x.Search(qs[i], 20, fs[i%len(fs)])
					if err != nil || !equal(got, want[i]) {
						errs <- "concurrent search differs"
						return
					}
					if _, err := x.SearchExact(qs[i], 20, fs[i%len(fs)]); err != nil {
						errs <- err.Error()
						return
					}
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// On vectors without structure (no topics: a query's neighbours scatter
// over many lists) the calibrated probe count keeps recall@10 >= 0.98
// against the exact scan, after the build and after a snapshot is loaded
// (here by finding that the lists do not pay and scanning exactly); the
// fixed default probe count does not come close.
func TestApproxRecallUnclustered(t *testing.T) {
	const dims, n = 64, 12000
	c := newCorpus(dims, 1, 21)
	build := func(o Options) *Index {
		x := mustNew(t, dims, o)
		for i := range n {
			if err := x.Add(fmt.Sprint("m", i), "s", 0, [][]float32{c.unit()}); err != nil {
				t.Fatal(err)
			}
		}
		if !x.Approximate() {
			t.Fatal("no inverted file")
		}
		return x
	}
	qs := make([][]float32, 100)
	for i := range qs {
		qs[i] = c.unit()
	}
	measure := func(x *Index) float64 { return recallVsExact(t, x, qs) }
	fixed := build(Options{ApproxAt: 5000, NProbe: DefaultNProbe})
	if r := measure(fixed); r >= 0.98 {
		t.Fatalf("with %d fixed probes recall@10 is %.3f already: the data does not test calibration", DefaultNProbe, r)
	} else {
		t.Logf("fixed %d of %d lists: recall@10 %.3f", DefaultNProbe, fixed.Stats().Lists, r)
	}
	x := build(Options{ApproxAt: 5000})
	st := x.Stats()
	r := measure(x)
	t.Logf("calibrated %d of %d lists: recall@10 %.3f", st.Probe, st.Lists, r)
	if r < 0.98 {
		t.Errorf("calibrated (%d of %d lists): recall@10 %.3f, want >= 0.98", st.Probe, st.Lists, r)
	}

	y := reload(t, x, Options{ApproxAt: 5000})
	if r := measure(y); r < 0.98 {
		t.Errorf("loaded (%d lists probed): recall@10 %.3f, want >= 0.98", y.Stats().Probe, r)
	}
}

// bagCorpus makes vectors as a bag-of-words embedder does (agentmem
// bench's): words drawn by a Zipf law, each hashed to a dimension, counts
// normalised. Stored texts have 25 words, questions 6.
type bagCorpus struct {
	r    *rand.Rand
	z    *rand.Zipf
	dims int
}

func newBagCorpus(dims int, seed uint64) *bagCorpus {
	r := rand.New(rand.NewPCG(seed, 3))
	return &bagCorpus{r: r, z: rand.NewZipf(r, 1.1, 2, 20000), dims: dims}
}

func (c *bagCorpus) bag(words int) []float32 {
	v := make([]float32, c.dims)
	for range words {
		w := c.z.Uint64()
		v[(w*2654435761)%uint64(c.dims)]++
	}
	for i := range v {
		v[i] += 0.02 * float32(c.r.Float64()) // no exact ties
	}
	normalize(v)
	return v
}

// Queries unlike the stored rows (short bags of words against long ones)
// need more lists than the sample calibration, which mixes rows, says; the
// searches themselves correct it: after enough of them, recall@10 against
// the exact scan is >= 0.98.
func TestApproxTunesToQueries(t *testing.T) {
	const dims, n = 128, 16000
	c := newBagCorpus(dims, 5)
	x := mustNew(t, dims, Options{ApproxAt: 8000})
	for i := range n {
		if err := x.Add(fmt.Sprint("m", i), "s", 0, [][]float32{c.bag(25)}); err != nil {
			t.Fatal(err)
		}
	}
	qs := make([][]float32, 100)
	for i := range qs {
		qs[i] = c.bag(6)
	}
	measure := func(x *Index) float64 { return recallVsExact(t, x, qs) }
	// the same rows with the sample's probe count fixed: no tuning
	probe := x.Stats().Probe
	fixed := mustNew(t, dims, Options{ApproxAt: 8000, NProbe: probe})
	c = newBagCorpus(dims, 5)
	for i := range n {
		if err := fixed.Add(fmt.Sprint("m", i), "s", 0, [][]float32{c.bag(25)}); err != nil {
			t.Fatal(err)
		}
	}
	before := measure(fixed)
	measure(x) // the first 16 searches are checked
	after, st := measure(x), x.Stats()
	// the first tuneMin searches are checked, then one in tuneEvery, or
	// every one once the checks have sent them to the exact scan
	if st.Checked < tuneMin || st.Checked > 2*len(qs) || st.Probe == st.Lists && st.Checked != 2*len(qs) {
		t.Errorf("%d of %d searches checked (probing %d of %d lists)", st.Checked, 2*len(qs), st.Probe, st.Lists)
	}
	t.Logf("recall@10 with the sample's %d of %d lists: %.3f; after the searches tuned it to %d: %.3f (the checks' share: %.3f)", probe, st.Lists, before, st.Probe, after, st.Found)
	if st.Probe < st.Lists && (st.Found < calibrationTarget || st.Found > 1) {
		t.Errorf("the checks' neighbours found at the tuned count: %.3f, want >= %v", st.Found, calibrationTarget)
	}
	if after < 0.98 {
		t.Errorf("recall@10 after tuning (%d of %d lists): %.3f, want >= 0.98", st.Probe, st.Lists, after)
	}
}

// A snapshot keeps the probe count the searches' checks had set, and a
// load starts from it; but the floor stays the sample's, so the checks of
// the searches after the load may lower it again. (Saved as the floor, a
// few hard questions before one save raised the count for good.)
func TestSnapshotTunedProbeIsNoFloor(t *testing.T) {
	const dims, n = 128, 16000
	c := newBagCorpus(dims, 5)
	x := mustNew(t, dims, Options{ApproxAt: 8000})
	rows := make([][]float32, n)
	for i := range n {
		rows[i] = c.bag(25)
		if err := x.Add(fmt.Sprint("m", i), "s", 0, [][]float32{rows[i]}); err != nil {
			t.Fatal(err)
		}
	}
	sample := x.Stats().Probe
	hard := make([][]float32, tuneMin)
	for i := range hard {
		hard[i] = c.bag(6) // sparse questions, whose neighbours scatter
	}
	recallVsExact(t, x, hard)
	tuned := x.Stats().Probe
	if tuned <= sample {
		t.Fatalf("the checks of %d sparse questions left the probe count at the sample's %d", len(hard), sample)
	}
	y := reload(t, x, Options{ApproxAt: 8000})
	if got := y.Stats().Probe; got != tuned {
		t.Fatalf("loaded probe count %d, want the tuned %d it was saved with", got, tuned)
	}
	// at the exact scan, a search asks for at least the checks' ten and
	// answers k (on another copy, whose check leaves y's count alone)
	z := reload(t, x, Options{ApproxAt: 8000})
	got, err := z.Search(hard[0], 3, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := z.SearchExact(hard[0], 3, Filter{})
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("k=3 at the exact scan: %v, want %v", got, want)
	}
	// questions that are rows: each one's neighbours are in its own list
	easy := rows[:tuneMin]
	recallVsExact(t, y, easy)
	after := y.Stats().Probe
	t.Logf("%d of %d lists: sample %d, tuned %d, after %d checked rows %d", after, y.Stats().Lists, sample, tuned, len(easy), after)
	if after >= tuned || after < sample {
		t.Errorf("after the load's checks: %d lists, want fewer than the saved %d and at least the sample's %d", after, tuned, sample)
	}
}

// Within the lists it probes, the inverted file's answer is exact: for
// every probe count, filter and k (one goroutine or several) it is the
// brute-force answer over the probed lists' rows, a memory scoring as its
// best window among them; after deletes and replacements too, whose rows
// leave their lists' copies (checkIVF).
func TestIVFProbedListsExact(t *testing.T) {
	c := newCorpus(32, 40, 11)
	x := mustNew(t, 32, Options{ApproxAt: 1500, NProbe: 1})
	ref := map[string]genMem{}
	ms := c.memories(parallelRows, "") // all lists: more rows than one goroutine takes
	add(t, x, ref, ms...)
	for i, m := range ms {
		switch i % 9 {
		case 0:
			x.Remove(m.id)
			delete(ref, m.id)
		case 1:
			add(t, x, ref, c.memories(1, "")[0]) // new rows, reused
		}
	}
	if !x.Approximate() {
		t.Fatalf("no inverted file at %d rows", x.Rows())
	}
	checkIVF(t, x)
	var lo, hi int64
	for _, m := range ref {
		if lo == 0 || m.date < lo {
			lo = m.date
		}
		hi = max(hi, m.date)
	}
	v := x.ivf
	compared := 0
	for _, probe := range []int{1, 3, v.nlist / 4, v.nlist} {
		for _, f := range []Filter{{}, {After: lo + (hi-lo)/3}} {
			for _, k := range []int{1, 10, 30} {
				for _, q := range c.queries(8) {
					qq := newQuantQuery(q, x.stride)
					order := v.byNearness(x, qq)
					probed := map[string]genMem{}
					for _, l := range order[:probe] {
						for _, r := range v.lists[l] {
							if f.After != 0 && x.rows[r].date < f.After {
								continue
							}
							id := x.mems[x.rows[r].mem].id
							m := probed[id]
							m.id = id
							m.windows = append(m.windows, x.rowF32(r))
							probed[id] = m
						}
					}
					want := brute(probed, q, k, Filter{})
					cf, _ := x.compile(f)
					for _, procs := range []int{1, 2, 3} {
						prev := runtime.GOMAXPROCS(procs)
						tk, _ := x.scanLists(qq, q, k, &cf, order[:probe])
						runtime.GOMAXPROCS(prev)
						if got := x.results(tk); !equal(got, want) {
							t.Fatalf("probe %d, k %d, filter %+v, %d procs:\ngot  %v\nwant %v", probe, k, f, procs, head(got), head(want))
						}
					}
					compared++
				}
			}
		}
	}
	t.Logf("%d searches exact over their probed lists (%d lists, %d rows)", compared, v.nlist, x.live)
}

// recallVsExact is x's mean recall@10 over qs against its exact scan.
func recallVsExact(t *testing.T, x *Index, qs [][]float32) float64 {
	t.Helper()
	var sum float64
	for _, q := range qs {
		got, err := x.Search(q, 10, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := x.SearchExact(q, 10, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		sum += recall(got, want)
	}
	return sum / float64(len(qs))
}

// reload saves x to a snapshot and loads it with opts.
func reload(t *testing.T, x *Index, opts Options) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.snap")
	if err := x.Save(path, 1, "t"); err != nil {
		t.Fatal(err)
	}
	y, _, err := Load(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// A list's codes that outgrow their room move off the heap, whole, and the
// room they leave, if it was theirs, is unmapped at once.
func TestListCodesMove(t *testing.T) {
	if !offHeapHere() {
		t.Skip("no anonymous mappings on this system: lists stay on the heap")
	}
	const stride = 64
	v := &ivf{lcodes: make([][]int8, 1), own: make([]*mapping, 1)}
	var want []int8
	var left []*mapping
	for i := range 1000 {
		row := make([]int8, stride)
		for j := range row {
			row[j] = int8(i + j)
		}
		before := v.own[0]
		v.lcodes[0] = v.appendCodes(0, row)
		want = append(want, row...)
		if v.own[0] != before {
			if before != nil {
				left = append(left, before)
			}
			if !within(v.lcodes[0], v.own[0]) {
				t.Fatalf("row %d: the codes moved, but not into their new room", i)
			}
		}
	}
	if !slices.Equal(v.lcodes[0], want) {
		t.Fatal("the codes changed as they moved")
	}
	if len(left) < 3 {
		t.Fatalf("moved %d times", len(left))
	}
	for i, m := range left {
		if m.data != nil {
			t.Fatalf("room %d still mapped after the codes left it", i)
		}
	}
}

// A checked search answers with the exact scan it runs for its check, so
// the first tuneMin searches after a build or load are exact whatever the
// probe count; one probed list alone misses some of their answers.
func TestCheckedSearchesAreExact(t *testing.T) {
	c := newCorpus(32, 60, 21)
	x := mustNew(t, 32, Options{ApproxAt: 2000})
	add(t, x, map[string]genMem{}, c.memories(5000, "")...)
	if x.ivf == nil {
		t.Fatal("no inverted file")
	}
	x.ivf.setProbe(1)
	all, _ := x.compile(Filter{})
	missed := 0
	for i, q := range c.queries(tuneMin) {
		want, err := x.SearchExact(q, 10, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if tk, ok := x.searchIVF(newQuantQuery(q, x.stride), q, 10, &all); !ok || !equal(x.results(tk), want) {
			missed++
		}
		got, err := x.Search(q, 10, Filter{})
		if err != nil || !equal(got, want) {
			t.Fatalf("checked search %d: %v (%v), want the exact %v", i, head(got), err, head(want))
		}
	}
	if missed == 0 {
		t.Fatal("one probed list found every answer: the test shows nothing")
	}
	if st := x.Stats(); st.Checked != tuneMin {
		t.Fatalf("%d searches checked, want %d", st.Checked, tuneMin)
	}
}

// Rows added under Bulk build no inverted file, however many; Bulk(false)
// builds it once, on all of them, and the index answers as one built by
// single Adds would: every row filed, recall kept.
func TestBulkBuildsOnce(t *testing.T) {
	c := newCorpus(48, 60, 21)
	x := mustNew(t, 48, Options{ApproxAt: 1000})
	ref := map[string]genMem{}
	x.Bulk(true)
	add(t, x, ref, c.memories(3500, "")...)
	if x.Approximate() {
		t.Fatalf("an inverted file built under Bulk, at %d rows", x.Rows())
	}
	x.Bulk(false)
	if !x.Approximate() || x.ivf.trained != x.Rows() {
		t.Fatalf("after Bulk(false): approximate %v, trained on %d of %d rows", x.Approximate(), x.ivf.trained, x.Rows())
	}
	checkIVF(t, x)
	if errs := slices.Collect(x.Check()); len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if r := meanRecall(t, x, ref, c.queries(100), Filter{}); r < 0.98 {
		t.Fatalf("recall@10 %.3f after a bulk build", r)
	}
	// below the threshold, Bulk(false) builds nothing
	y := mustNew(t, 48, Options{ApproxAt: 1000})
	y.Bulk(true)
	add(t, y, map[string]genMem{}, c.memories(500, "small")...)
	y.Bulk(false)
	if y.Approximate() {
		t.Fatal("an inverted file below ApproxAt")
	}
}

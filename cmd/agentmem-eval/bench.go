package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"agentmem/memory"
	"agentmem/memory/embedder/cache"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
	"agentmem/memory/store/embedded/vectors"
)

// benchCmd measures the embedded store at scale (issue 11): one namespace
// of N memories of real text, a 512-dimensional embedder that costs
// nothing (a bag of hashed words), k=10 (--k).
type benchCmd struct {
	Sizes   []int  `default:"10000,100000" help:"Memories per run (one namespace each, a fresh store each)."`
	Data    string `default:"../shared/data" help:"Directory holding longmemeval/longmemeval_s_dev.json.gz: its unique turns are the memories (cycled past their count) and its questions the queries; generated text when it is absent."`
	Queries int    `default:"200" help:"Queries per fusion mode."`
	Work    string `help:"Directory for the stores (a temporary directory by default); each run's store is removed after it."`
	Profile string `help:"Write a CPU profile of the whole run to this file."`
	Keep    bool   `help:"Keep each run's data dir in --work (--work/SIZE; its store, in --work/SIZE/store, holds one namespace, bench), e.g. for agentmem check or the text-side benchmark of memory/store/embedded."`
	PerCall int    `name:"per-call" help:"Turns per remember call while ingesting: 0 sends each session whole (as an import does), 1 one turn at a time (as an agent remembering as it talks does)."`
	Reuse   bool   `help:"With --keep: a store of that size an earlier --keep run left in --work is measured again without its ingest (recall, open, RSS; ingest is not reported)."`
	K       int    `default:"10" help:"The k of each recall; 0 leaves it out, so that the recall takes the one the history's size gives (memory.AutoK: 20 at a million memories), as a call that names none does."`
	Settle  bool   `help:"Before the timed recalls, ask the questions over and over, untimed, until the vector index has had 200 searches checked against the exact scan: its probe count is then the one its checks settle on for these questions (what a server asked them again and again would use), not a count read from a few dozen checks."`
	Real    bool   `help:"Embed with the configured embedder (--embedder) through the embedding cache of --data-dir, as the server does (each turn led by its predecessor's last words), instead of the zero-cost bag of hashed words. With a cache an eval filled from the same LongMemEval file, the vectors are a real model's at about no embedding cost; a text the cache lacks is embedded by the model (slowly)."`
}

type benchSession struct {
	id, date string
	msgs     []memory.Message
}

const benchNS = "bench"

func (c benchCmd) Run(e *env) error {
	sessions, queries, source, err := benchCorpus(c.Data)
	if err != nil {
		return err
	}
	if len(queries) > c.Queries {
		queries = queries[:c.Queries]
	}
	work := c.Work
	if work == "" && c.Keep {
		return errors.New("--keep needs --work")
	}
	if c.K < 0 || c.K > memory.MaxK {
		return fmt.Errorf("--k must be between 0 (the history's) and %d, got %d", memory.MaxK, c.K)
	}
	if c.Reuse && !c.Keep {
		return errors.New("--reuse needs --keep (and --work)")
	}
	if work == "" {
		if work, err = os.MkdirTemp("", "agentmem-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	stop, err := startCPUProfile(c.Profile)
	if err != nil {
		return err
	}
	defer stop()
	var emb memory.Embedder = &fake.Embedder{Name: "bench", N: 512}
	what := "zero-cost embedder"
	if c.Real {
		var closeCache func() error
		if emb, closeCache, err = benchEmbedder(e); err != nil {
			return err
		}
		defer closeCache()
		what = "embedder through the cache"
	}
	k := strconv.Itoa(c.K)
	if c.K == 0 {
		k = "the history's (memory.AutoK)"
	}
	fmt.Printf("agentmem bench: %s; %d queries per mode; k=%s; %d-d %s (%s); GOMAXPROCS %d; %s\n\n",
		source, len(queries), k, emb.Dims(), what, emb.ID(), runtime.GOMAXPROCS(0), loadAvg())
	for _, n := range c.Sizes {
		if err := benchRun(e, c, filepath.Join(work, strconv.Itoa(n)), n, sessions, queries, emb); err != nil {
			return fmt.Errorf("%d memories: %w", n, err)
		}
	}
	return nil
}

var benchModes = []memory.Fusion{memory.RRF, memory.RSF, memory.TextOnly, memory.VectorOnly, memory.Rerank}

// benchEmbedder is the configured embedder behind the embedding cache of
// the data dir, contextual as the server's (package backend).
func benchEmbedder(e *env) (memory.Embedder, func() error, error) {
	dir, err := e.cfg.Prepare()
	if err != nil {
		return nil, nil, err
	}
	m, err := e.cfg.NewEmbedder(e.ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, nil, errors.New("--real needs an embedder: --embedder none has none")
	}
	// unlike the server's (backend.Backend.cached), no cache is an error: the
	// model would embed a million turns itself
	c, err := cache.Open(filepath.Join(dir, "embeddings.db"), m)
	if err != nil {
		return nil, nil, fmt.Errorf("--real: the embedding cache of %s: %w", dir, err)
	}
	return memory.Contextual(c), c.Close, nil
}

func benchRun(e *env, c benchCmd, dir string, n int, sessions []benchSession, queries []string, emb memory.Embedder) error {
	ctx := e.ctx
	keep, reuse, perCall := c.Keep, c.Reuse, c.PerCall
	if !keep {
		defer os.RemoveAll(dir)
	}
	open := benchOpener(e, dir, emb)

	// ingest
	if reuse {
		if _, err := os.Stat(filepath.Join(dir, "store", "memories.db")); err == nil {
			return benchRecall(e, c, dir, n, queries, emb, open, nil)
		}
		fmt.Printf("(--reuse: no store kept in %s; ingesting)\n\n", dir)
	}
	// a fresh store: one an earlier --keep run left (with its snapshot
	// perhaps still set aside) would skip every turn as already stored
	if err := os.RemoveAll(filepath.Join(dir, "store")); err != nil {
		return err
	}
	st, svc, _, err := open()
	if err != nil {
		return err
	}
	start, cpu0 := time.Now(), cpuTime()
	skipped, err := benchIngestTurns(ctx, svc, sessions, n, perCall)
	if err != nil {
		benchClose(svc, st)
		return err
	}
	ingest, ingestCPU := time.Since(start), cpuTime()-cpu0
	start = time.Now()
	if err := benchClose(svc, st); err != nil {
		return err
	}
	closing := time.Since(start)
	embedShare, err := benchEmbedShare(ctx, emb, sessions, n, ingest)
	if err != nil {
		return err
	}

	return benchRecall(e, c, dir, n, queries, emb, open, &benchIngest{ingest, ingestCPU, embedShare, closing, skipped})
}

// benchOpener is what opens the store in dir, and a service of emb on it,
// timing the store's open.
func benchOpener(e *env, dir string, emb memory.Embedder) func() (*embedded.Store, *memory.Service, time.Duration, error) {
	ctx := e.ctx
	return func() (*embedded.Store, *memory.Service, time.Duration, error) {
		start := time.Now()
		st, err := embedded.Open(ctx, filepath.Join(dir, "store"), embedded.Options{EmbedderID: emb.ID(), Dims: emb.Dims(), Recipe: memory.RecipeOf(emb), NoSync: true, Logger: e.log})
		if err != nil {
			return nil, nil, 0, err
		}
		took := time.Since(start)
		svc, err := memory.New(memory.Options{Store: st, Embedder: emb, Namespace: benchNS})
		if err != nil {
			st.Close()
			return nil, nil, 0, err
		}
		return st, svc, took, nil
	}
}

// benchIngestTurns remembers n turns of sessions through svc, the
// sessions again (under other ids) past their count, perCall turns a call
// (0: a session whole), and returns how many of them the store already
// held.
func benchIngestTurns(ctx context.Context, svc *memory.Service, sessions []benchSession, n, perCall int) (skipped int, err error) {
	stored := 0
	for pass := 0; stored < n; pass++ {
		for _, s := range sessions {
			if stored >= n {
				break
			}
			msgs := s.msgs[:min(len(s.msgs), n-stored)]
			step := len(msgs)
			if perCall > 0 {
				step = perCall
			}
			for len(msgs) > 0 {
				call := msgs[:min(step, len(msgs))]
				msgs = msgs[len(call):]
				res, err := svc.Remember(ctx, memory.RememberRequest{Namespace: benchNS, SessionID: fmt.Sprintf("p%d-%s", pass, s.id), SessionDate: s.date, Messages: call})
				if err != nil {
					return 0, err
				}
				stored += res.Stored + res.Skipped
				skipped += res.Skipped
			}
		}
	}
	return skipped, nil
}

// benchEmbedShare is what the embedder itself cost within an ingest of n
// turns that took ingest, timed on up to 20,000 of the sessions' turns:
// NaN for a real embedder, whose cost would be the cache's, or the
// model's.
func benchEmbedShare(ctx context.Context, emb memory.Embedder, sessions []benchSession, n int, ingest time.Duration) (float64, error) {
	var texts []string
	for _, s := range sessions {
		for _, m := range s.msgs {
			texts = append(texts, m.Content)
		}
	}
	texts = texts[:min(len(texts), 20000)]
	embedShare := math.NaN() // a real embedder's would be the cache's, or the model's
	if f, ok := emb.(*fake.Embedder); ok {
		start := time.Now()
		if _, err := f.Embed(ctx, texts); err != nil {
			return 0, err
		}
		embedShare = time.Since(start).Seconds() / float64(len(texts)) * float64(n) / ingest.Seconds()
	}
	return embedShare, nil
}

// benchWarmUp is how many questions each fusion mode asks first, untimed.
const benchWarmUp = 20

// benchOrder is what a mode asks: the first benchWarmUp questions to warm
// up, then every question, timed. It is a new slice: appending to
// queries[:benchWarmUp], as this once did, wrote into the spare capacity
// of queries, over the questions themselves, so that each mode after the
// first asked fewer distinct questions (the fifth, 20).
func benchOrder(queries []string) []string {
	return slices.Concat(queries[:min(benchWarmUp, len(queries))], queries)
}

// benchClose closes a run's service (its background filler holds the
// store, and with it every vector, until then) and then its store.
func benchClose(svc *memory.Service, st *embedded.Store) error {
	svc.Close()
	return st.Close()
}

// benchIngest is what the ingest of a run measured.
type benchIngest struct {
	wall, cpu  time.Duration
	embedShare float64
	closing    time.Duration
	skipped    int // turns the store already held: not a fresh ingest
}

// benchWarm asks the questions once, untimed: the first mode measured
// would otherwise pay for faulting in the pages of the snapshot and the
// text index that every mode then finds in memory. With settle, it asks
// them again until the vector index has had 200 searches checked against
// the exact scan (at most 200 rounds), and says how many rounds that took.
// usedK is the k the recalls used: k, or the server's for the history (k
// 0).
func benchWarm(ctx context.Context, svc *memory.Service, st *embedded.Store, queries []string, k int, settle bool) (usedK int, settled string, err error) {
	usedK = k
	for round := 1; round <= 200; round++ {
		for _, q := range queries {
			res, err := svc.Recall(ctx, memory.RecallRequest{Query: q, K: k, Namespace: benchNS})
			if err != nil {
				return 0, "", err
			}
			usedK = res.K
		}
		if !settle {
			return usedK, "", nil
		}
		if vs := st.VectorStats(benchNS); !vs.Approximate || vs.Checked >= 200 || round == 200 {
			return usedK, fmt.Sprintf(", settled over %d rounds of the questions", round), nil
		}
	}
	return usedK, "", nil
}

// benchTime times the questions' recalls in each fusion mode, after
// benchWarmUp untimed ones: their latencies, and the CPU time of the
// timed ones.
func benchTime(ctx context.Context, svc *memory.Service, queries []string, k int) (map[memory.Fusion][]time.Duration, map[memory.Fusion]time.Duration, error) {
	lat := map[memory.Fusion][]time.Duration{}
	cpu := map[memory.Fusion]time.Duration{}
	for _, mode := range benchModes {
		warm := min(benchWarmUp, len(queries))
		for i, q := range benchOrder(queries) {
			if i == warm {
				cpu[mode] = -cpuTime()
			}
			start := time.Now()
			if _, err := svc.Recall(ctx, memory.RecallRequest{Query: q, K: k, Namespace: benchNS, Fusion: mode}); err != nil {
				return nil, nil, err
			}
			if i >= warm {
				lat[mode] = append(lat[mode], time.Since(start))
			}
		}
		cpu[mode] += cpuTime()
	}
	return lat, cpu, nil
}

// benchRecall measures recall, open and RSS on the store in dir (ing: its
// ingest, nil when reused), with c's k, after benchSettle with c.Settle.
func benchRecall(e *env, c benchCmd, dir string, n int, queries []string, emb memory.Embedder, open func() (*embedded.Store, *memory.Service, time.Duration, error), ing *benchIngest) error {
	ctx, k := e.ctx, c.K
	if err := putBack(dir); err != nil { // a run stopped in its last step
		return err
	}
	// searches, on a store opened from its snapshot
	runtime.GC()
	debug.FreeOSMemory()
	rssBefore := readRSS()
	st, svc, openSnap, err := open()
	if err != nil {
		return err
	}
	opened := st.VectorStats(benchNS)
	usedK, settled, err := benchWarm(ctx, svc, st, queries, k, c.Settle)
	if err != nil {
		benchClose(svc, st)
		return err
	}
	lat, cpu, err := benchTime(ctx, svc, queries, k)
	if err != nil {
		benchClose(svc, st)
		return err
	}
	runtime.GC()
	debug.FreeOSMemory()
	rss := readRSS()
	vs := st.VectorStats(benchNS) // the probe count as the searches tuned it
	plain, err := benchPlainScan(ctx, st, emb, queries, vs.Rows)
	if err != nil {
		benchClose(svc, st)
		return err
	}
	if err := benchClose(svc, st); err != nil {
		return err
	}

	printBenchIngest(n, vs, opened, settled, ing)
	from := "from the snapshot"
	if vecs, _ := measuredSnapshot(dir); !hasSnapshot(vecs) {
		from = "from the records (a namespace this small has no vector snapshot)"
	}
	fmt.Printf("- open: %.2f s %s\n", openSnap.Seconds(), from)
	fmt.Printf("- RSS after open and %d recalls: %s (before the open: %s)\n", len(benchModes)*len(queries), rss, rssBefore)
	fmt.Printf("- vector recall@10 against the exact float32 scan: %.4f\n\n", plain.recall)
	printBenchTable(usedK, len(queries), plain, lat, cpu)
	return benchOpenRecords(dir, open)
}

// benchPlain is what the reference measured: the latencies and CPU time
// of its scans, and the vector index's recall@10 against it.
type benchPlain struct {
	lat    []time.Duration
	cpu    time.Duration
	recall float64
}

// benchPlainScan measures the reference, the same vectors as st's (rows
// windows), a plain float32 scan (one goroutine, a dot product per
// window, the best window per memory), on the queries, and the recall@10
// of st's vector index against it.
func benchPlainScan(ctx context.Context, st *embedded.Store, emb memory.Embedder, queries []string, rows int) (benchPlain, error) {
	var out benchPlain
	qvecs, err := emb.Embed(ctx, queries)
	if err != nil {
		return out, err
	}
	// sized once: at 1M memories of the built-in model (3.1M windows) the
	// copy is 6.4 GB, and growing it by appends needed twice that
	ref := &plainScan{dims: emb.Dims(), ids: make([]string, 0, rows), data: make([]float32, 0, rows*emb.Dims())}
	if err := st.Export(ctx, benchNS, true, func(m memory.Memory) error {
		for _, v := range m.Vectors {
			ref.ids = append(ref.ids, m.ID)
			ref.data = append(ref.data, v...)
		}
		return nil
	}); err != nil {
		return out, err
	}
	var recallSum float64
	out.cpu = -cpuTime()
	for _, qv := range qvecs {
		start := time.Now()
		ref.top(qv, 10)
		out.lat = append(out.lat, time.Since(start))
	}
	out.cpu += cpuTime()
	for _, qv := range qvecs {
		want := ref.top(qv, 10)
		got, err := st.NearestVectors(benchNS, qv, 10)
		if err != nil {
			return out, err
		}
		hit := 0
		for _, id := range got {
			if slices.Contains(want, id) {
				hit++
			}
		}
		recallSum += float64(hit) / float64(max(1, len(want)))
	}
	out.recall = recallSum / float64(len(qvecs))
	return out, nil
}

// benchQuantile is the q quantile of ds, in milliseconds.
func benchQuantile(ds []time.Duration, q float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
}

// printBenchIngest prints a run's heading (its n memories, vs's windows
// and inverted file, after the recalls and at open) and what its ingest
// (ing; nil: none, --reuse) measured.
func printBenchIngest(n int, vs, opened vectors.Stats, settled string, ing *benchIngest) {
	ivf := "no inverted file: the exact vector scan"
	if vs.Approximate {
		ivf = fmt.Sprintf("inverted file: probing %d of %d lists after the recalls, set by %d searches checked against the exact scan, which find %.3f of their top 10 at that count; %d at open%s",
			vs.Probe, vs.Lists, vs.Checked, vs.Found, opened.Probe, settled)
	}
	fmt.Printf("## %d memories (%d windows; %s)\n\n", n, vs.Rows, ivf)
	if ing != nil {
		share := "the cached embedder's share: not measured"
		if !math.IsNaN(ing.embedShare) {
			share = fmt.Sprintf("the zero-cost embedder's share: %.0f%%", 100*ing.embedShare)
		}
		fmt.Printf("- ingest: %.0f turns/s (%.1f s wall; %.1f s of CPU: %.0f turns per CPU-second; %s); close (snapshot saved): %.2f s\n",
			float64(n)/ing.wall.Seconds(), ing.wall.Seconds(), ing.cpu.Seconds(), float64(n)/ing.cpu.Seconds(), share, ing.closing.Seconds())
		if ing.skipped > 0 {
			fmt.Printf("- of which %d turns the store already held (skipped, not stored): the rate above is not an ingest's\n", ing.skipped)
		}
	} else {
		fmt.Printf("- ingest: not measured (the store of an earlier run, --reuse)\n")
	}
}

// printBenchTable prints the table of each fusion mode's latencies (lat)
// and CPU time (cpu) over nq questions, at k usedK, against the plain
// scan's.
func printBenchTable(usedK, nq int, plain benchPlain, lat map[memory.Fusion][]time.Duration, cpu map[memory.Fusion]time.Duration) {
	p := benchQuantile
	plain50 := p(plain.lat, 0.5)
	perQ := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(nq) }
	plainC := perQ(plain.cpu)
	fmt.Printf("| recall (k=%d) | p50 ms | p95 ms | p50 / plain scan | CPU ms per query | CPU / plain scan |\n|---|---:|---:|---:|---:|---:|\n", usedK)
	fmt.Printf("| plain f32 scan of the same vectors (reference) | %.2f | %.2f | 1 | %.2f | 1 |\n", plain50, p(plain.lat, 0.95), plainC)
	for _, mode := range benchModes {
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", mode, p(lat[mode], 0.5), p(lat[mode], 0.95), p(lat[mode], 0.5)/plain50, perQ(cpu[mode]), perQ(cpu[mode])/plainC)
	}
	fmt.Println()
}

// benchOpenRecords measures the open from the records (no snapshots), for
// comparison: last, as it rebuilds every vector in RAM (what came before
// is printed by then). The snapshot measured is set aside and put back
// after, so that a kept store is the one measured: the rebuild trains its
// inverted file afresh, and its lists, not the measured ones, would
// otherwise be what --reuse measures.
func benchOpenRecords(dir string, open func() (*embedded.Store, *memory.Service, time.Duration, error)) error {
	runtime.GC()
	debug.FreeOSMemory()
	vecs, aside := measuredSnapshot(dir)
	if err := os.Rename(vecs, aside); err != nil && !errors.Is(err, fs.ErrNotExist) { // none: too small a store
		return err
	}
	st, svc, openRecords, err := open()
	if err != nil {
		return errors.Join(err, putBack(dir))
	}
	fmt.Printf("- open from the records (no vector snapshot): %.2f s\n\n", openRecords.Seconds())
	return errors.Join(benchClose(svc, st), putBack(dir))
}

// measuredSnapshot is where the store in dir keeps its vector snapshots,
// and where the last step of a run sets them aside.
func measuredSnapshot(dir string) (vecs, aside string) {
	vecs = filepath.Join(dir, "store", "vectors")
	return vecs, vecs + ".measured"
}

// hasSnapshot reports whether the store's vector directory holds a
// snapshot file.
func hasSnapshot(vecs string) bool {
	snaps, _ := filepath.Glob(filepath.Join(vecs, "*.snap"))
	return len(snaps) > 0
}

// putBack restores the snapshots set aside in dir, if any, over the
// rebuilt ones.
func putBack(dir string) error {
	vecs, aside := measuredSnapshot(dir)
	if _, err := os.Stat(aside); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if err := os.RemoveAll(vecs); err != nil {
		return err
	}
	return os.Rename(aside, vecs)
}

// plainScan is the reference: a float32 dot product per window, one
// goroutine, the best window per memory, ties to the smaller id.
type plainScan struct {
	dims int
	ids  []string
	data []float32
}

func (ps *plainScan) top(q []float32, k int) []string {
	type hit struct {
		id    string
		score float32
	}
	var best []hit // k best, best first
	worse := func(a, b hit) bool { return a.score < b.score || a.score == b.score && a.id > b.id }
	for r, id := range ps.ids {
		h := hit{id, vectors.Dot(q, ps.data[r*ps.dims:(r+1)*ps.dims])}
		if len(best) == k && !worse(best[k-1], h) {
			continue
		}
		if i := slices.IndexFunc(best, func(b hit) bool { return b.id == id }); i >= 0 {
			if !worse(best[i], h) {
				continue
			}
			best = slices.Delete(best, i, i+1)
		}
		i, _ := slices.BinarySearchFunc(best, h, func(a, b hit) int {
			if worse(b, a) {
				return -1
			}
			return 1
		})
		best = slices.Insert(best, i, h)
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]string, len(best))
	for i, b := range best {
		out[i] = b.id
	}
	return out
}

// readRSS is the process's resident set (anonymous + file-backed), from
// /proc; "n/a" elsewhere.
func readRSS() string {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	f := map[string]string{}
	for _, l := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok {
			f[k] = strings.TrimSpace(v)
		}
	}
	mb := func(k string) string {
		kb, _ := strconv.Atoi(strings.TrimSuffix(f[k], " kB"))
		return fmt.Sprintf("%d MB", kb/1024)
	}
	return fmt.Sprintf("%s (%s anonymous, %s file-backed)", mb("VmRSS"), mb("RssAnon"), mb("RssFile"))
}

func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load n/a"
	}
	return "load average " + strings.Join(strings.Fields(string(raw))[:3], " ")
}

// benchCorpus reads LongMemEval-S's sessions (unique turns only) and
// questions from dir, or generates text when the file is absent.
func benchCorpus(dir string) ([]benchSession, []string, string, error) {
	path := filepath.Join(dir, "longmemeval", "longmemeval_s_dev.json.gz")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		s, q := generatedCorpus()
		return s, q, "generated text (" + path + " not found)", nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", path, err)
	}
	var items []struct {
		Question string   `json:"question"`
		Dates    []string `json:"haystack_dates"`
		Sessions [][]struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"haystack_sessions"`
	}
	if err := json.NewDecoder(gz).Decode(&items); err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	var sessions []benchSession
	var queries []string
	turns := 0
	for _, it := range items {
		queries = append(queries, it.Question)
		for i, s := range it.Sessions {
			bs := benchSession{id: fmt.Sprint("s", len(sessions))}
			if i < len(it.Dates) && len(it.Dates[i]) >= 10 {
				bs.date = strings.ReplaceAll(it.Dates[i][:10], "/", "-")
			}
			for _, t := range s {
				if seen[t.Content] || strings.TrimSpace(t.Content) == "" || utf8.RuneCountInString(t.Content) > memory.MaxContentChars {
					continue // a repeat, empty, or over remember's limit (a few pasted documents)
				}
				seen[t.Content] = true
				role := t.Role
				if role != "user" && role != "assistant" {
					role = "user"
				}
				bs.msgs = append(bs.msgs, memory.Message{Role: role, Content: t.Content})
			}
			if len(bs.msgs) > 0 {
				sessions = append(sessions, bs)
				turns += len(bs.msgs)
			}
		}
	}
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(queries), func(i, j int) { queries[i], queries[j] = queries[j], queries[i] })
	slices.SortStableFunc(sessions, func(a, b benchSession) int { return cmp.Compare(a.date, b.date) })
	return sessions, queries, fmt.Sprintf("%d unique turns in %d sessions of %s (cycled past that count), its %d questions as queries", turns, len(sessions), path, len(queries)), nil
}

// generatedCorpus is sessions of ten generated turns and generated
// questions, for when the data is absent.
func generatedCorpus() ([]benchSession, []string) {
	words := strings.Fields(`the a to and I you my we went saw bought cooked visited painted read ran met called said about
yesterday tomorrow week month friends family sister brother dog cat garden kitchen museum concert hike trip beach city
book movie song recipe dinner school work project meeting doctor birthday wedding gift vacation Paris Boston Tokyo Lisbon
guitar violin coffee tea bike car train flight hotel rent salary budget plan yoga run swim marathon course exam teacher`)
	r := rand.New(rand.NewPCG(1, 2))
	sentence := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[r.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	day := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	var sessions []benchSession
	for s := range 10000 {
		bs := benchSession{id: fmt.Sprint("g", s), date: day.AddDate(0, 0, s/20).Format(time.DateOnly)}
		for t := range 10 {
			bs.msgs = append(bs.msgs, memory.Message{Role: []string{"user", "assistant"}[t%2], Content: sentence(12 + r.IntN(30))})
		}
		sessions = append(sessions, bs)
	}
	queries := make([]string, 500)
	for i := range queries {
		queries[i] = sentence(8)
	}
	return sessions, queries
}

package vectors

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// record mirrors the embedded store's JSON memory record (memory.Memory
// without its vectors), so decoding costs what it costs at open today.
type record struct {
	ID          string    `json:"id"`
	Namespace   string    `json:"namespace"`
	SessionID   string    `json:"session_id"`
	SessionDate time.Time `json:"session_date"`
	Turn        int       `json:"turn"`
	Role        string    `json:"role"`
	Text        string    `json:"text"`
	Hash        string    `json:"hash"`
	Embedder    string    `json:"embedder,omitempty"`
	Created     time.Time `json:"created"`
}

var loremWords = strings.Fields("the a to and I you my we went saw bought cooked visited painted read ran met called said about yesterday tomorrow week month friends family sister brother dog cat garden kitchen museum concert hike trip beach city book movie song recipe dinner school work project meeting doctor birthday wedding gift vacation")

// writeBolt stores ms the way the embedded store does: a JSON record in
// "mem" and the windows as little-endian float32 in "vec", same key.
func writeBolt(b *testing.B, path string, ms []genMem) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for start := 0; start < len(ms); start += 10000 {
		err := db.Update(func(tx *bolt.Tx) error {
			mem, err := tx.CreateBucketIfNotExists([]byte("mem"))
			if err != nil {
				return err
			}
			vec, err := tx.CreateBucketIfNotExists([]byte("vec"))
			if err != nil {
				return err
			}
			for i, m := range ms[start:min(len(ms), start+10000)] {
				words := make([]string, 30)
				for j := range words {
					words[j] = loremWords[(i*7+j*13)%len(loremWords)]
				}
				rec := record{ID: m.id, Namespace: "ns", SessionID: m.session, SessionDate: time.Unix(0, m.date).UTC(), Turn: i % 10, Role: "user",
					Text: strings.Join(words, " "), Hash: fmt.Sprintf("%016x", i), Embedder: "bench", Created: time.Unix(0, m.date).UTC()}
				raw, err := json.Marshal(rec)
				if err != nil {
					return err
				}
				k := []byte("ns\x1f" + m.id)
				if err := mem.Put(k, raw); err != nil {
					return err
				}
				v := make([]byte, 0, 4*benchDims*len(m.windows))
				for _, w := range m.windows {
					for _, f := range w {
						v = binary.LittleEndian.AppendUint32(v, math.Float32bits(f))
					}
				}
				if err := vec.Put(k, v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// loadBolt is today's start-up: every vector decoded from the records, then
// added to a new index (quantised; the graph built when large enough).
func loadBolt(b *testing.B, path string, opts Options) *Index {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	x, err := New(benchDims, opts)
	if err != nil {
		b.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		mem := tx.Bucket([]byte("mem"))
		return tx.Bucket([]byte("vec")).ForEach(func(k, v []byte) error {
			var rec record
			if err := json.Unmarshal(mem.Get(k), &rec); err != nil {
				return err
			}
			flat := make([]float32, len(v)/4)
			for i := range flat {
				flat[i] = math.Float32frombits(binary.LittleEndian.Uint32(v[4*i:]))
			}
			ws := make([][]float32, 0, len(flat)/benchDims)
			for i := 0; i < len(flat); i += benchDims {
				ws = append(ws, flat[i:i+benchDims:i+benchDims])
			}
			return x.Add(rec.ID, rec.SessionID, rec.SessionDate.UnixNano(), ws)
		})
	})
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkOpen compares start-up from the bbolt records (decode, quantise,
// build the inverted file) with loading a snapshot (map, verify, decode the small
// sections), for the same corpus, and checks both answer alike.
func BenchmarkOpen(b *testing.B) {
	for _, n := range sizes() {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			c := newCorpus(benchDims, max(16, int(math.Sqrt(float64(n)))/2), uint64(n))
			var ms []genMem
			for done := 0; done < n; done += 5000 {
				ms = append(ms, c.memories(min(5000, n-done), fmt.Sprintf("b%d-", done))...)
			}
			dbPath := filepath.Join(dir, "memories.db")
			writeBolt(b, dbPath, ms)
			ms = nil
			opts := Options{ApproxAt: 50_000} // as BenchmarkSearch
			snap := filepath.Join(dir, "vectors.snap")

			var fromBolt time.Duration
			var x *Index
			qs := c.queries(20)
			b.Run("bbolt", func(b *testing.B) {
				for range b.N {
					x = nil
					runtime.GC()
					debug.FreeOSMemory()
					anon0, file0 := rssParts()
					start := time.Now()
					x = loadBolt(b, dbPath, opts)
					fromBolt = time.Since(start)
					for _, q := range qs {
						x.Search(q, 30, Filter{})
					}
					runtime.GC()
					debug.FreeOSMemory()
					anon, file := rssParts()
					b.ReportMetric(float64(anon-anon0)/1e6, "anon-MB")
					b.ReportMetric(float64(file-file0)/1e6, "file-MB")
				}
				b.ReportMetric(fromBolt.Seconds(), "s/open")
				b.ReportMetric(float64(x.Rows()), "windows")
			})
			var save time.Duration
			start := time.Now()
			if err := x.Save(snap, 1, "bench"); err != nil {
				b.Fatal(err)
			}
			save = time.Since(start)
			st, _ := os.Stat(snap)
			b.Run("snapshot", func(b *testing.B) {
				var y *Index
				var took time.Duration
				for range b.N {
					y = nil
					runtime.GC()
					debug.FreeOSMemory()
					anon0, file0 := rssParts()
					start := time.Now()
					var err error
					y, _, err = Load(snap, opts)
					if err != nil {
						b.Fatal(err)
					}
					took = time.Since(start)
					// resident after a few searches: the mapped rows they touch
					for _, q := range qs {
						y.Search(q, 30, Filter{})
					}
					runtime.GC()
					debug.FreeOSMemory()
					anon, file := rssParts()
					b.ReportMetric(float64(anon-anon0)/1e6, "anon-MB")
					b.ReportMetric(float64(file-file0)/1e6, "file-MB")
				}
				b.ReportMetric(took.Seconds(), "s/open")
				b.ReportMetric(save.Seconds(), "s/save")
				b.ReportMetric(float64(st.Size())/1e6, "MB")
				for _, q := range qs {
					ra, _ := x.Search(q, 30, Filter{})
					rb, _ := y.Search(q, 30, Filter{})
					if !equal(ra, rb) {
						b.Fatalf("snapshot answers differ")
					}
				}
			})
		})
	}
}

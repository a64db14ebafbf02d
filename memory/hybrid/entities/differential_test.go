package entities_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"agentmem/memory/hybrid/entities"
)

// The differential tests hold Extract to golden data (testdata/golden.json.gz):
// the outputs of the extractor as it was before it was rebuilt over bleve's
// analysis and data tables (the reference, commit 44291cc, with the intended
// changes of behaviour made since), saved once from it, on the development
// data when it is present and on a few texts of every kind. Entities are
// indexed with every stored turn and matched against every query, so a
// change here moves the eval numbers; an intended change of behaviour
// rewrites the golden data in the same commit (go test -update).
//
// The development data is not part of the repository, so the golden data
// holds none of it: per data file, a digest of the texts read from it and a
// 32-bit hash of each text's entities, in the order read; a text whose
// entities differ is named with what Extract gives for it.

var update = flag.Bool("update", false, "rewrite testdata/golden.json.gz from what Extract gives now")

const goldenFile = "testdata/golden.json.gz"

// golden is the content of goldenFile.
type golden struct {
	Note string `json:"note"`
	// Texts are short texts of every kind, with their entities.
	Texts []goldenText `json:"texts"`
	// Data is, per development data file, what its texts give.
	Data map[string]goldenData `json:"data"`
}

type goldenText struct {
	Text     string   `json:"text"`
	Entities []string `json:"entities"`
}

type goldenData struct {
	Texts  int    `json:"texts"`
	Inputs string `json:"inputs"` // sha256 of the texts, each followed by a NUL
	Hashes []byte `json:"hashes"` // FNV-1a (32 bits) of each text's entities joined by NULs, big-endian
}

func readGolden(t *testing.T) golden {
	t.Helper()
	var g golden
	f, err := os.Open(goldenFile)
	if errors.Is(err, fs.ErrNotExist) && *update {
		return g
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(z).Decode(&g); err != nil {
		t.Fatalf("%s: %v", goldenFile, err)
	}
	return g
}

// writeGolden rewrites goldenFile with what change makes of it.
func writeGolden(t *testing.T, change func(*golden)) {
	t.Helper()
	g := readGolden(t)
	change(&g)
	g.Note = "Entities of the extractor's reference outputs; see differential_test.go. Rewritten by go test ./memory/hybrid/entities -update."
	raw, err := json.MarshalIndent(g, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	z.Write(raw)
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// entityHash is the hash of a text's entities the golden data holds.
func entityHash(ents []string) uint32 {
	h := fnv.New32a()
	for _, e := range ents {
		h.Write([]byte(e))
		h.Write([]byte{0})
	}
	return h.Sum32()
}

func inputsDigest(in []string) string {
	h := sha256.New()
	for _, s := range in {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dataEnv names the directory holding locomo/ and longmemeval/; without
// it the tests look in ../shared/data relative to the module root.
const dataEnv = "AGENTMEM_TEST_DATA"

func dataFile(t *testing.T, rel string) string {
	t.Helper()
	dir := os.Getenv(dataEnv)
	if dir == "" {
		root, err := filepath.Abs(".")
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
				break
			}
			up := filepath.Dir(root)
			if up == root {
				t.Skipf("no go.mod above the package, so no ../shared/data; set %s to run on the development data", dataEnv)
			}
			root = up
		}
		dir = filepath.Join(root, "..", "shared", "data")
	}
	path := filepath.Join(dir, rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("development data absent (%v); set %s to the directory holding %s to run this test", err, dataEnv, rel)
	}
	return path
}

// texts collects the inputs Extract sees, without repeats.
type texts struct {
	seen map[string]bool
	list []string
}

func (x *texts) add(s string) {
	for _, s := range []string{s, strings.TrimSpace(s)} {
		if s != "" && !x.seen[s] {
			if x.seen == nil {
				x.seen = make(map[string]bool)
			}
			x.seen[s] = true
			x.list = append(x.list, s)
		}
	}
}

// session adds the turns of one session one by one and, as the
// session-granularity evals store them, as "speaker: text" lines.
func (x *texts) session(who, text []string) {
	var b strings.Builder
	for i := range text {
		x.add(text[i])
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(who[i] + ": " + text[i])
	}
	x.add(b.String())
}

// differ runs Extract on every text of the data file name, on all cores,
// and reports each text whose entities are not the golden data's.
func differ(t *testing.T, name string, in []string) {
	t.Helper()
	workers := runtime.GOMAXPROCS(0)
	hashes := make([]byte, 4*len(in))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(in); i += workers {
				binary.BigEndian.PutUint32(hashes[4*i:], entityHash(entities.Extract(in[i])))
			}
		})
	}
	wg.Wait()
	if *update {
		writeGolden(t, func(g *golden) {
			if g.Data == nil {
				g.Data = map[string]goldenData{}
			}
			g.Data[name] = goldenData{Texts: len(in), Inputs: inputsDigest(in), Hashes: hashes}
		})
		return
	}
	want, ok := readGolden(t).Data[name]
	switch {
	case !ok:
		t.Fatalf("%s has no golden data for %s (go test -update makes it)", goldenFile, name)
	case want.Texts != len(in) || want.Inputs != inputsDigest(in):
		t.Fatalf("the golden data of %s was made from other texts (%d, digest %.12s; these are %d, %.12s): is it the data file of EVALS.md?", name, want.Texts, want.Inputs, len(in), inputsDigest(in))
	}
	var diffs []int
	for i := range in {
		if !bytes.Equal(hashes[4*i:4*i+4], want.Hashes[4*i:4*i+4]) {
			diffs = append(diffs, i)
		}
	}
	for n, i := range diffs {
		if n == 30 {
			break
		}
		t.Errorf("Extract(%.300q) = %q: not the golden entities", in[i], entities.Extract(in[i]))
	}
	if len(diffs) > 0 {
		t.Errorf("%d of %d texts differ from the golden data", len(diffs), len(in))
	}
	size := 0
	for _, s := range in {
		size += len(s)
	}
	t.Logf("%d texts, %.1f MB compared", len(in), float64(size)/1e6)
}

func TestDifferentialLoCoMo(t *testing.T) {
	path := dataFile(t, filepath.Join("locomo", "locomo_dev7.json"))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var samples []struct {
		QA []struct {
			Question string `json:"question"`
		} `json:"qa"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		t.Fatal(err)
	}
	var x texts
	turns := 0
	for _, s := range samples {
		for _, q := range s.QA {
			x.add(q.Question)
		}
		for n := 1; ; n++ {
			msg, ok := s.Conversation[fmt.Sprintf("session_%d", n)]
			if !ok {
				break
			}
			var ts []struct {
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
				Caption string `json:"blip_caption"`
			}
			if err := json.Unmarshal(msg, &ts); err != nil {
				t.Fatalf("session_%d: %v", n, err)
			}
			var who, text []string
			for _, tt := range ts {
				x.add(tt.Text)
				if tt.Caption != "" {
					tt.Text += " [shared a photo: " + tt.Caption + "]" // as the eval stores it
				}
				who, text = append(who, tt.Speaker), append(text, tt.Text)
			}
			turns += len(ts)
			x.session(who, text)
		}
	}
	if turns < 4000 {
		t.Fatalf("read only %d turns from %s; is it the 7-conversation subset?", turns, path)
	}
	differ(t, "locomo/locomo_dev7.json", x.list)
}

func TestDifferentialLongMemEval(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the LongMemEval differential test (about 120k turns)")
	}
	path := dataFile(t, filepath.Join("longmemeval", "longmemeval_s_dev.json.gz"))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var items []struct {
		Question string `json:"question"`
		Sessions [][]struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"haystack_sessions"`
	}
	if err := json.NewDecoder(z).Decode(&items); err != nil {
		t.Fatal(err)
	}
	var x texts
	turns := 0
	for _, it := range items {
		x.add(it.Question)
		for _, s := range it.Sessions {
			var who, text []string
			for _, tt := range s {
				who, text = append(who, tt.Role), append(text, tt.Content)
			}
			turns += len(s)
			x.session(who, text)
		}
	}
	if turns < 100000 {
		t.Fatalf("read only %d turns from %s; is it the 250-question subset?", turns, path)
	}
	differ(t, "longmemeval/longmemeval_s_dev.json.gz", x.list)
}

// goldenTexts are short texts of every kind the extractor reads.
var goldenTexts = []string{
	"When did I go to the Nordstrom friends and family sale?",
	`My favourite book was "Charlotte's Web", 'The Alchemist' and “Becoming”.`,
	"[1:56 pm on 8 May, 2023] Caroline: I ran 5 km, paid $1,200 (20%) on 2023-05-07.",
	"mail a.b@c.com, see https://x.org/y #tag @handle «Le Petit Prince» 「千と千尋」",
	"Jane.Doe@Example.COM (www.Example.com/Path). github.com/owner/repo e.g. Node.js #1 @a.b",
	"CAROLINE'S dog, Zoë’s cat, JOHN’S car; Caroline's mom met Dr. Smith in Sept. 2023.",
	"Tuesday, May 8th, 2023; the 8th of June; 12/05/2019; 2023-5-7; In 2019 we were 2000 people.",
	"I have two kids, a 10km run, a 5-day trip, 3-year-old, 10k steps, 2GB, 1.5 million yen.",
	"Lord of the Rings at the Museum of Modern Art, Barnes & Noble, iPhone 15, NASA JPL.",
	benchTurn,
}

// TestGoldenTexts holds Extract to the golden entities of goldenTexts,
// which the golden data spells out.
func TestGoldenTexts(t *testing.T) {
	if *update {
		writeGolden(t, func(g *golden) {
			g.Texts = nil
			for _, s := range goldenTexts {
				g.Texts = append(g.Texts, goldenText{s, entities.Extract(s)})
			}
		})
		return
	}
	g := readGolden(t)
	if len(g.Texts) != len(goldenTexts) {
		t.Fatalf("%s holds %d texts, the test %d (go test -update after changing them)", goldenFile, len(g.Texts), len(goldenTexts))
	}
	for i, s := range goldenTexts {
		want := g.Texts[i]
		if got := entities.Extract(s); want.Text != s || !slices.Equal(got, want.Entities) {
			t.Errorf("Extract(%q)\n got %q\nwant %q (golden, for %q)", s, got, want.Entities, want.Text)
		}
	}
}

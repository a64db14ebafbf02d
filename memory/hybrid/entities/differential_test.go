package entities_test

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"agentmem/memory/hybrid/entities"
)

// The differential tests hold Extract to the output of referenceExtract
// (oracle_test.go, the extractor as it was before it was rebuilt over
// bleve's analysis and data tables): on the development data when it is
// present, and on whatever the fuzzer finds. Entities are indexed with
// every stored turn and matched against every query, so a change here
// moves the eval numbers; an intended change of behaviour updates the
// oracle in the same commit.

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

// differ runs both extractors on every text, on all cores, and reports
// each difference.
func differ(t *testing.T, in []string) {
	t.Helper()
	workers := runtime.GOMAXPROCS(0)
	diffs := make([][]int, workers) // indexes into in, per worker
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(in); i += workers {
				if !slices.Equal(entities.Extract(in[i]), referenceExtract(in[i])) {
					diffs[w] = append(diffs[w], i)
				}
			}
		})
	}
	wg.Wait()
	all := slices.Sorted(slices.Values(slices.Concat(diffs...)))
	for n, i := range all {
		if n == 30 {
			break
		}
		got, want := entities.Extract(in[i]), referenceExtract(in[i])
		if extra, lost := minus(got, want), minus(want, got); extra != nil || lost != nil {
			t.Errorf("Extract(%.300q)\n only in got %q\nonly in want %q (reference)", in[i], extra, lost)
		} else {
			t.Errorf("Extract(%.300q): the same entities in another order\n got %q\nwant %q (reference)", in[i], got, want)
		}
	}
	if len(all) > 0 {
		t.Errorf("%d of %d texts differ from the reference", len(all), len(in))
	}
	bytes := 0
	for _, s := range in {
		bytes += len(s)
	}
	t.Logf("%d texts, %.1f MB compared", len(in), float64(bytes)/1e6)
}

// minus returns the elements of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, e := range a {
		if !slices.Contains(b, e) {
			out = append(out, e)
		}
	}
	return out
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
	differ(t, x.list)
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
	differ(t, x.list)
}

// FuzzDifferential holds Extract to the reference on arbitrary text.
func FuzzDifferential(f *testing.F) {
	for _, s := range []string{
		"When did I go to the Nordstrom friends and family sale?",
		`My favourite book was "Charlotte's Web", 'The Alchemist' and “Becoming”.`,
		"[1:56 pm on 8 May, 2023] Caroline: I ran 5 km, paid $1,200 (20%) on 2023-05-07.",
		"mail a.b@c.com, see https://x.org/y #tag @handle «Le Petit Prince» 「千と千尋」",
		"Jane.Doe@Example.COM (www.Example.com/Path). github.com/owner/repo e.g. Node.js #1 @a.b",
		"CAROLINE'S dog, Zoë’s cat, JOHN’S car; Caroline's mom met Dr. Smith in Sept. 2023.",
		"Tuesday, May 8th, 2023; the 8th of June; 12/05/2019; 2023-5-7; In 2019 we were 2000 people.",
		"I have two kids, a 10km run, a 5-day trip, 3-year-old, 10k steps, 2GB, 1.5 million yen.",
		"Lord of the Rings at the Museum of Modern Art, Barnes & Noble, iPhone 15, NASA JPL.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := entities.Extract(s), referenceExtract(s); !slices.Equal(got, want) {
			t.Errorf("Extract(%q)\n got %q\nwant %q (reference)", s, got, want)
		}
	})
}

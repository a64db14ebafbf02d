package dates

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchData returns the directory of the benchmark data (LoCoMo and
// LongMemEval), which is licensed and never in the repository: the
// AGENTMEM_BENCH_DATA variable, else ../shared/data beside the module.
func benchData(t *testing.T, file string) string {
	t.Helper()
	dir := os.Getenv("AGENTMEM_BENCH_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	path := filepath.Join(dir, file)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("benchmark data absent (%v); set AGENTMEM_BENCH_DATA to the directory holding %s", err, file)
	}
	if testing.Short() {
		t.Skip("reading the benchmark data is slow; run without -short")
	}
	return path
}

// Every LoCoMo session date parses, and formats back to the same text.
func TestLoCoMoDates(t *testing.T) {
	path := benchData(t, filepath.Join("locomo", "locomo_dev7.json"))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(b, &samples); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range samples {
		for k, v := range s.Conversation {
			if !strings.HasSuffix(k, "_date_time") {
				continue
			}
			var date string
			if err := json.Unmarshal(v, &date); err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			n++
			got, dateOnly, err := Parse(date, time.UTC)
			if err != nil || dateOnly {
				t.Errorf("%s: %v (date only: %v)", k, err, dateOnly)
				continue
			}
			if back := got.Format("3:04 pm on 2 January, 2006"); back != date {
				t.Errorf("Parse(%q) = %v, which formats as %q", date, got, back)
			}
		}
	}
	if n == 0 {
		t.Fatal("no session dates found")
	}
	t.Logf("%d LoCoMo session dates read", n)
}

// Every LongMemEval haystack and question date parses (so every weekday
// agrees with its date), and formats back to the same text.
func TestLongMemEvalDates(t *testing.T) {
	path := benchData(t, filepath.Join("longmemeval", "longmemeval_s_dev.json.gz"))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(z)
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for dec.More() {
		var q struct {
			ID           string   `json:"question_id"`
			HaystackDate []string `json:"haystack_dates"`
			QuestionDate string   `json:"question_date"`
		}
		if err := dec.Decode(&q); err != nil {
			t.Fatal(err)
		}
		for _, date := range append(q.HaystackDate, q.QuestionDate) {
			n++
			got, dateOnly, err := Parse(date, time.UTC)
			if err != nil || dateOnly {
				t.Errorf("%s: %v (date only: %v)", q.ID, err, dateOnly)
				continue
			}
			if back := got.Format("2006/01/02 (Mon) 15:04"); back != date {
				t.Errorf("Parse(%q) = %v, which formats as %q", date, got, back)
			}
		}
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no dates found")
	}
	t.Logf("%d LongMemEval dates read", n)
}

package entities_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentmem/memory/hybrid/entities"
)

// A typical LoCoMo turn of about 300 characters.
const benchTurn = "Caroline: Hey Mel! Last Saturday I went to the LGBTQ support group at the Golden Gate " +
	"community center and met Dr. Alvarez, who recommended \"Charlotte's Web\" for the kids. " +
	"It was 5 km from home and cost $20, and on 8 May, 2023 I start counseling classes at " +
	"Stanford. Email me at caroline@example.com!"

// BenchmarkExtract measures Extract on a question, a turn, a long
// document and, when the
// development data is present, every LoCoMo turn (MB/s over their text).
func BenchmarkExtract(b *testing.B) {
	cases := []struct{ name, text string }{
		{"question", "When did I go to the Nordstrom friends and family sale?"},
		{"turn300", benchTurn},
		{"doc5k", strings.Repeat(benchTurn+" ", 16)},
	}
	impls := []struct {
		name string
		fn   func(string) []string
	}{{"new", entities.Extract}}
	for _, c := range cases {
		for _, im := range impls {
			b.Run(c.name+"/"+im.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.text)))
				b.ReportAllocs()
				for b.Loop() {
					im.fn(c.text)
				}
			})
		}
	}
	turns := locomoTurns(b)
	if turns == nil {
		return
	}
	size := 0
	for _, s := range turns {
		size += len(s)
	}
	for _, im := range impls {
		b.Run("locomo/"+im.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range turns {
					im.fn(s)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(turns)), "ns/turn")
		})
	}
}

// locomoTurns returns the text of every LoCoMo development turn, or nil
// (and says why) when the data is absent.
func locomoTurns(b *testing.B) []string {
	dir := os.Getenv(dataEnv)
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "shared", "data") // the module root is three levels up
	}
	raw, err := os.ReadFile(filepath.Join(dir, "locomo", "locomo_dev7.json"))
	if err != nil {
		b.Logf("locomo sub-benchmark skipped: %v (set %s)", err, dataEnv)
		return nil
	}
	var samples []struct {
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, s := range samples {
		for k, v := range s.Conversation {
			if !strings.HasPrefix(k, "session_") || strings.HasSuffix(k, "_date_time") {
				continue
			}
			var ts []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(v, &ts); err != nil {
				b.Fatalf("%s: %v", k, err)
			}
			for _, t := range ts {
				out = append(out, t.Text)
			}
		}
	}
	return out
}

package uselite

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

var benchWords = strings.Fields(`the user prefers dark mode and uses vim keybindings in every editor
the project stores memories in bbolt with a scorch index for full text search and vectors for semantic recall
deployments happen on tuesdays after the integration tests pass and the changelog is reviewed by two people
alice is allergic to peanuts and her birthday is on march third so order the cake from the bakery on main street`)

// benchTexts returns n different texts of exactly tokens tokens each.
func benchTexts(b *testing.B, m *Model, n, tokens int) []string {
	b.Helper()
	texts := make([]string, n)
	for i := range texts {
		var words []string
		for k := i; ; k++ {
			w := benchWords[(k*7+i)%len(benchWords)]
			next := strings.Join(append(words, w), " ")
			if len(m.Tokenize(next)) > tokens {
				break
			}
			words = append(words, w)
		}
		texts[i] = strings.Join(words, " ")
		if got := len(m.Tokenize(texts[i])); got < tokens-6 {
			b.Fatalf("text of %d tokens, want ~%d", got, tokens)
		}
	}
	return texts
}

// BenchmarkEmbed measures throughput on batches of 64 texts of about 30 and
// 128 tokens, and the latency of one short query.
func BenchmarkEmbed(b *testing.B) {
	m := testModel(b)
	ctx := context.Background()
	for _, c := range []struct{ batch, tokens int }{{64, 30}, {64, 128}, {1, 10}} {
		texts := benchTexts(b, m, c.batch, c.tokens)
		b.Run(fmt.Sprintf("batch%d_tokens%d", c.batch, c.tokens), func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := m.Embed(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
			n := float64(b.N * len(texts))
			b.ReportMetric(n/b.Elapsed().Seconds(), "texts/s")
			// CPU time per text, which other processes on the machine
			// disturb less than the wall-clock rate.
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-µs/text")
			}
			// Peak RSS of the whole test process so far (model loaded,
			// everything embedded up to now).
			if rss := peakRSS(); rss > 0 {
				b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
			}
		})
	}
}

// BenchmarkEmbedDocuments embeds long memories (about 1,000 tokens: 10
// windows each) in a batch of 32.
func BenchmarkEmbedDocuments(b *testing.B) {
	m := testModel(b)
	ctx := context.Background()
	texts := make([]string, 32)
	for i := range texts {
		texts[i] = strings.Repeat(strings.Join(benchWords[i:], " ")+" ", 40)[:5000]
	}
	windows := 0
	for _, t := range texts {
		windows += len(Windows(len(m.Tokenize(t))))
	}
	for b.Loop() {
		if _, err := m.EmbedDocuments(ctx, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*windows)/b.Elapsed().Seconds(), "windows/s")
	if rss := peakRSS(); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
	}
}

// BenchmarkLoad measures loading the embedded model: checksums, parsing,
// transposing the weights.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := load(embeddedModel(), haveVNNI); err != nil {
			b.Fatal(err)
		}
	}
}

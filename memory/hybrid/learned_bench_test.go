package hybrid

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
)

// BenchmarkLearnedOrder scores a pool of 90 candidates of about 60 words
// (a chat's turns) and of about 400 (an assistant's long answers).
func BenchmarkLearnedOrder(b *testing.B) {
	for _, words := range []int{60, 400} {
		b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
			sentence := strings.Fields("I went hiking with my family last weekend near the lake and it was great fun, we saw two deer.")
			var hits []memory.Hit
			var kept []Fused
			for i := range 90 {
				var t strings.Builder
				for j := range words {
					t.WriteString(sentence[(i+j)%len(sentence)] + " ")
				}
				m := memory.Memory{ID: fmt.Sprintf("s%d:%d", i%20, i), SessionID: fmt.Sprintf("s%d", i%20), Turn: i, Role: "user",
					Text: t.String(), SessionDate: time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)}
				hits = append(hits, memory.Hit{Memory: m, Score: 1 / float64(i+1)})
				kept = append(kept, Fused{ID: m.ID, Score: 1 / float64(i+1), TextRank: i + 1, VectorRank: 90 - i, TextScore: 3, VectorScore: 0.4})
			}
			q := memory.Query{Text: "What hobbies does my family pursue at the lake on weekends?", Fusion: memory.RRF, Vector: []float32{1}}
			if !Learned(q) {
				b.Fatal("the learned order does not apply")
			}
			work := make([]memory.Hit, len(hits))
			b.ResetTimer()
			for range b.N {
				copy(work, hits) // learned scores them anew each time
				learned(q, work, kept)
			}
		})
	}
}

// BenchmarkParseModel reads the embedded model, as a server's first
// learned recall does once.
func BenchmarkParseModel(b *testing.B) {
	for range b.N {
		if _, err := parseModel(learnedJSON); err != nil {
			b.Fatal(err)
		}
	}
}

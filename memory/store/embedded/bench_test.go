package embedded_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
)

var words = strings.Fields(`the a to and I you my we went saw bought cooked visited painted read ran
met called said about yesterday tomorrow week month friends family sister brother dog cat
garden kitchen museum concert hike trip beach city book movie song recipe dinner school work
project meeting doctor birthday wedding gift vacation Paris Boston Tokyo Lisbon guitar violin`)

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

// BenchmarkRemember measures ingest of 10-turn sessions (LongMemEval-like),
// in turns per second, with a 512-dimensional embedder that costs nothing.
func BenchmarkRemember(b *testing.B) {
	e := &fake.Embedder{Name: "bench", N: 512}
	svc, st := open(b, b.TempDir(), e)
	defer st.Close()
	r := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for i := range b.N {
		texts := make([]string, 10)
		for j := range texts {
			texts[j] = sentence(r, 30)
		}
		if _, err := svc.Remember(ctx, memory.RememberRequest{Namespace: fmt.Sprintf("ns%d", i/50), SessionID: fmt.Sprint("s", i), SessionDate: "2023-05-07", Messages: msgs(texts...)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*10)/b.Elapsed().Seconds(), "turns/s")
}

// BenchmarkRecall measures hybrid recall (k=10) in one namespace of 500
// turns (a LongMemEval-S haystack) inside a store of 20 such namespaces.
func BenchmarkRecall(b *testing.B) {
	e := &fake.Embedder{Name: "bench", N: 512}
	svc, st := open(b, b.TempDir(), e)
	defer st.Close()
	r := rand.New(rand.NewPCG(1, 2))
	for ns := range 20 {
		for s := range 50 {
			texts := make([]string, 10)
			for j := range texts {
				texts[j] = sentence(r, 30)
			}
			if _, err := svc.Remember(ctx, memory.RememberRequest{Namespace: fmt.Sprint("ns", ns), SessionID: fmt.Sprint("s", s), SessionDate: "2023-05-07", Messages: msgs(texts...)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := svc.Recall(ctx, memory.RecallRequest{Namespace: fmt.Sprint("ns", i%20), Query: sentence(r, 12), K: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

var ctx = context.Background()

// open is a service over an embedded store in dir, with embedder e.
func open(b testing.TB, dir string, e memory.Embedder) (*memory.Service, *embedded.Store) {
	b.Helper()
	st, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true, EmbedderID: e.ID(), Dims: e.Dims()})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := memory.New(memory.Options{Store: st, Embedder: e})
	if err != nil {
		b.Fatal(err)
	}
	return svc, st
}

func msgs(texts ...string) []memory.Message {
	out := make([]memory.Message, len(texts))
	for i, t := range texts {
		out[i] = memory.Message{Role: []string{"user", "assistant"}[i%2], Content: t}
	}
	return out
}

package embedded

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded/maxscore"
)

// A text side that fails (here a panic, which the index's guard turns
// into an error) still gives the vector side, which may be waiting for
// its candidates (vectors.SearchSeeded), its end: the search ends rather
// than hanging on the vector side.
func TestTextSidePanicEndsVectorSide(t *testing.T) {
	defer func(n int) { approxAt = n }(approxAt)
	approxAt = 300
	st := openDims4(t, t.TempDir())
	defer st.Close()
	r := rand.New(rand.NewPCG(3, 4))
	vec := func() []float32 {
		return []float32{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64()), 1}
	}
	words := []string{"apple", "river", "stone", "cloud", "lamp", "garden"}
	var ms []memory.Memory
	for i := range 600 {
		ms = append(ms, memory.Memory{ID: memory.MemoryID(fmt.Sprint("s", i/10), i%10), Namespace: "a", SessionID: fmt.Sprint("s", i/10),
			SessionDate: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Turn: i % 10, Role: "user",
			Text: words[i%6] + " " + words[(i/6)%6], Embedder: "test", Vectors: [][]float32{vec()}})
	}
	if err := st.Put(context.Background(), ms); err != nil {
		t.Fatal(err)
	}
	if vs := st.VectorStats("a"); !vs.Approximate {
		t.Fatalf("no inverted file at %d windows", vs.Rows)
	}
	maxScoreTrace = func(maxscore.Result) { panic("text side fault") }
	defer func() { maxScoreTrace = nil }()
	for i := range 20 {
		done := make(chan error, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- fmt.Errorf("panic: %v", p)
				}
			}()
			_, err := st.Search(context.Background(), memory.Query{Namespace: "a", Text: "apple river stone", Vector: vec(), K: 10, Fusion: memory.RRF})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatalf("search %d: the text side's fault did not reach the caller", i)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("search %d: hung after its text side panicked", i)
		}
	}
}

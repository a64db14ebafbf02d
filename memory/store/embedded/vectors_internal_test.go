package embedded

import (
	"context"
	"fmt"
	"testing"
	"time"

	"agentmem/memory"
)

// Close gives the vectors' memory back at once (vectors.Index.Release),
// not at a later collection: much of it lies off the Go heap, where the
// collector's pacing does not see it.
func TestCloseGivesVectorsBack(t *testing.T) {
	ctx := context.Background()
	st := openDims4(t, t.TempDir())
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	var ms []memory.Memory
	for n := range 30 {
		ms = append(ms, memory.Memory{ID: memory.MemoryID("s", n), Namespace: "default", SessionID: "s", SessionDate: day,
			Turn: n, Role: "user", Text: fmt.Sprintf("turn %d", n), Hash: fmt.Sprint(n), Created: day, Embedder: "test",
			Vectors: [][]float32{{1, float32(n), 0, 0}}})
	}
	if err := st.Put(ctx, ms); err != nil {
		t.Fatal(err)
	}
	x := st.vec.byNS["default"]
	if x == nil || x.Len() != 30 {
		t.Fatalf("before the close: %v", x)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if x.Len() != 0 || x.Rows() != 0 || len(st.vec.byNS) != 0 {
		t.Fatalf("after the close the index still holds %d memories (%d windows); %d namespaces", x.Len(), x.Rows(), len(st.vec.byNS))
	}
}

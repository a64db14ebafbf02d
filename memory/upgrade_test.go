package memory_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
)

// failing embeds as its fake does, except while fail is set.
type failing struct {
	*fake.Embedder
	fail  atomic.Bool
	calls atomic.Int64
}

func (f *failing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	if f.fail.Load() {
		return nil, errors.New("the embedder is down")
	}
	return f.Embedder.Embed(ctx, texts)
}

// syncBuf is a log buffer safe for the upgrade's goroutine.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The upgrade of an earlier recipe's vectors tries again after a failing
// embedder, stops at once when its service closes (keeping what the store
// had), and the next service's upgrade ends it: every memory with the
// vectors a remember makes now, the recipe recorded.
func TestUpgradeRetriesAndResumes(t *testing.T) {
	emb := &failing{Embedder: &fake.Embedder{Name: "upgrade", N: 32}}
	ctxl := memory.Contextual(emb)
	dir := t.TempDir()
	openStore := func(recipe string) *embedded.Store {
		st, err := embedded.Open(bg, dir, embedded.Options{EmbedderID: ctxl.ID(), Dims: ctxl.Dims(), Recipe: recipe, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	logs := &syncBuf{}
	service := func(st *embedded.Store) *memory.Service {
		svc, err := memory.New(memory.Options{Store: st, Embedder: ctxl, Now: func() time.Time { return clock },
			Logger: slog.New(slog.NewTextHandler(logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	// an earlier agentmem's store: each memory with its turn's vector only
	st := openStore("")
	svc := service(st)
	for i := range 70 { // more than one batch
		if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", SessionDate: "2023-05-01",
			Messages: []memory.Message{{Role: "user", Content: strings.Repeat("word ", i%5+1) + "one. And two."}}}); err != nil {
			t.Fatal(err)
		}
	}
	svc.Close()
	fresh := vectorsOfAll(t, st)
	var old []memory.Memory
	st.Export(bg, "", true, func(m memory.Memory) error {
		m.Vectors = m.Vectors[:1]
		old = append(old, m)
		return nil
	})
	if err := st.Put(bg, old); err != nil {
		t.Fatal(err)
	}
	st.Close()
	stripped := func(st *embedded.Store) bool {
		for _, vs := range vectorsOfAll(t, st) {
			if len(vs) != 1 {
				return false
			}
		}
		return true
	}

	// the embedder is down: the upgrade retries; a close stops it at once
	emb.fail.Store(true)
	st = openStore(memory.Recipe)
	defer func() { st.Close() }()
	svc = service(st)
	svc.UpgradeVectors()
	waitFor(t, logs, "retrying", 1)
	began := time.Now()
	svc.Close()
	if d := time.Since(began); d > 500*time.Millisecond {
		t.Errorf("Close took %v while the upgrade waited to retry", d)
	}
	if st.Recipe() != "" || !stripped(st) {
		t.Fatalf("after a failed upgrade the store reports recipe %q and its memories changed", st.Recipe())
	}

	// back up after the first failure: the same service's retry ends it
	svc = service(st)
	svc.UpgradeVectors()
	waitFor(t, logs, "retrying", 2)
	emb.fail.Store(false)
	waitFor(t, logs, "have this agentmem's vectors", 1)
	svc.Close()
	if st.Recipe() != memory.Recipe {
		t.Errorf("after the upgrade the store reports recipe %q", st.Recipe())
	}
	got := vectorsOfAll(t, st)
	for id, vs := range fresh {
		if !slices.EqualFunc(got[id], vs, slices.Equal[[]float32]) {
			t.Errorf("memory %s has %d vectors after the upgrade, not the %d a remember makes", id, len(got[id]), len(vs))
		}
	}
	if !strings.Contains(logs.String(), "memories_replaced=70") {
		t.Errorf("the upgrade's log does not count 70 memories replaced:\n%s", logs)
	}
}

// vectorsOfAll maps each memory of st to its vectors.
func vectorsOfAll(t *testing.T, st memory.Store) map[string][][]float32 {
	t.Helper()
	out := map[string][][]float32{}
	if err := st.Export(bg, "", true, func(m memory.Memory) error {
		out[m.ID] = m.Vectors
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitFor waits until logs hold s n times, at most 20 s.
func waitFor(t *testing.T, logs *syncBuf, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(logs.String(), s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the logs within 20 s:\n%s", s, logs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A memory that already has a vector for each sentence (a store whose
// recipe was not recorded, or an upgrade cut short) is passed over without
// embedding it again.
func TestUpgradePassesOverMemoriesWithWindows(t *testing.T) {
	emb := &failing{Embedder: &fake.Embedder{Name: "upgrade", N: 32}}
	ctxl := memory.Contextual(emb)
	dir := t.TempDir()
	st, err := embedded.Open(bg, dir, embedded.Options{EmbedderID: ctxl.ID(), Dims: ctxl.Dims(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := memory.New(memory.Options{Store: st, Embedder: ctxl, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", SessionDate: "2023-05-01",
		Messages: []memory.Message{{Role: "user", Content: "One. Two."}, {Role: "assistant", Content: "Three! Four?"}}}); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	st.Close()
	st, err = embedded.Open(bg, dir, embedded.Options{EmbedderID: ctxl.ID(), Dims: ctxl.Dims(), Recipe: memory.Recipe, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Recipe() != "" {
		t.Fatalf("the store reports recipe %q; want none recorded", st.Recipe())
	}
	logs := &syncBuf{}
	svc, err = memory.New(memory.Options{Store: st, Embedder: ctxl, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	emb.calls.Store(0)
	svc.UpgradeVectors()
	waitFor(t, logs, "have this agentmem's vectors", 1)
	svc.Close()
	if n := emb.calls.Load(); n != 0 || !strings.Contains(logs.String(), "memories_embedded=0 memories_replaced=0") || st.Recipe() != memory.Recipe {
		t.Errorf("an upgrade of memories that have their windows embedded %d times and recorded recipe %q:\n%s", n, st.Recipe(), logs)
	}
}

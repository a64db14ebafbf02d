package embedded_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// BenchmarkOpenManyNamespaces measures opening (and closing) a store of
// 300 namespaces of 50 turns each, as the eval harness leaves with --keep
// (one namespace per LongMemEval question), and reports the goroutines and
// open files the open store holds.
func BenchmarkOpenManyNamespaces(b *testing.B) {
	const namespaces, turns = 300, 50
	dir := b.TempDir()
	st, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	day := time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)
	for n := range namespaces {
		ms := make([]memory.Memory, turns)
		for i := range ms {
			ms[i] = memory.Memory{ID: memory.MemoryID("s", i), Namespace: fmt.Sprint("q", n), SessionID: "s", SessionDate: day, Turn: i,
				Role: "user", Text: fmt.Sprintf("turn %d of question %d about the garden", i, n), Hash: fmt.Sprint(i), Created: day}
		}
		if err := st.Put(ctx, ms); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	g0, f0 := runtime.NumGoroutine(), openFiles()
	var g, f int
	for b.Loop() {
		st, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		g, f = runtime.NumGoroutine()-g0, openFiles()-f0
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(g), "goroutines")
	b.ReportMetric(float64(f), "files")
}

// openFiles counts the process's open file descriptors (0 where /proc is
// not there).
func openFiles() int {
	fds, _ := os.ReadDir("/proc/self/fd")
	return len(fds)
}

// BenchmarkOpenStore measures opening (and closing) the store
// AGENTMEM_BENCH_STORE (a store directory made by `agentmem bench --keep`).
func BenchmarkOpenStore(b *testing.B) {
	dir := os.Getenv("AGENTMEM_BENCH_STORE")
	if dir == "" {
		b.Skip("AGENTMEM_BENCH_STORE is not set: make a store with `agentmem bench --sizes 100000 --keep --work DIR` and point it at DIR/100000")
	}
	for b.Loop() {
		st, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true, SkipEmbedderCheck: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

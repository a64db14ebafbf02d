package embedded_test

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
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
// AGENTMEM_BENCH_STORE (a store directory made by `agentmem-eval bench --keep`).
func BenchmarkOpenStore(b *testing.B) {
	dir := os.Getenv("AGENTMEM_BENCH_STORE")
	if dir == "" {
		b.Skip("AGENTMEM_BENCH_STORE is not set: make a store with `agentmem-eval bench --sizes 100000 --keep --work DIR` and point it at DIR/100000")
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

// BenchmarkSearchTextStore measures the store's text side end to end
// (Search with fusion=text, k=10) in the store AGENTMEM_BENCH_STORE, namespace
// "bench", with the first words of 200 stored turns as queries.
func BenchmarkSearchTextStore(b *testing.B) {
	dir := os.Getenv("AGENTMEM_BENCH_STORE")
	if dir == "" {
		b.Skip("AGENTMEM_BENCH_STORE is not set: make a store with `agentmem-eval bench --sizes 100000 --keep --work DIR` and point it at DIR/100000")
	}
	st, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true, SkipEmbedderCheck: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var qs []memory.Query
	n := 0
	err = st.Export(ctx, "bench", false, func(m memory.Memory) error {
		if n++; n%500 == 0 && len(qs) < 200 {
			w := strings.Fields(m.Text)
			qs = append(qs, memory.Query{Namespace: "bench", Text: strings.Join(w[:min(len(w), 10)], " "), K: 10, Fusion: memory.TextOnly})
		}
		return nil
	})
	if err != nil || len(qs) == 0 {
		b.Fatalf("%d queries from %s: %v", len(qs), dir, err)
	}
	i := 0
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	for b.Loop() {
		if _, err := st.Search(ctx, qs[i%len(qs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano()
	// CPU per search: robust on a shared machine, where wall is not
	b.ReportMetric(float64(cpu)/1e6/float64(i), "cpu-ms/op")
}

package embedded_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"agentmem/memory"
)

// Batches return before bleve has written them (scorch.go), so Close
// waits for the index to be on disk: the next open finds it up to date,
// replays nothing and rebuilds nothing, and finds every memory.
func TestCloseLeavesIndexOnDisk(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir, nil)
	const sessions, turns = 60, 40 // 2,400 memories and 120 pages: several batches
	for s := range sessions {
		var ms []memory.Memory
		for n := range turns {
			ms = append(ms, mem(s, n))
		}
		if err := st.Put(context.Background(), ms); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	st = openStore(t, dir, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	defer st.Close()
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "journal") || strings.Contains(l, "rebuild") {
			t.Errorf("the index was not on disk after Close: %s", l)
		}
	}
	if n := found(t, st); n != sessions*turns {
		t.Errorf("BM25 finds %d memories, want %d", n, sessions*turns)
	}
}

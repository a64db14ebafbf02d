package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"agentmem/memory/store/embedded"
)

// A store whose only snapshot is damaged says so in its snapshots' line,
// not "none" above the problem (a trial read the two as contradicting).
func TestCheckPrintsDamagedSnapshots(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	printSnapshots("S", &embedded.Report{Vectors: 20000, Snapshots: []string{`namespace "bigk": its snapshot is not used (section 0 checksum)`}})
	os.Stdout = saved
	w.Close()
	out, _ := io.ReadAll(r)
	if got := string(out); strings.Contains(got, "none") || !strings.Contains(got, "not used, as they do not match the records: 1 problem, below") {
		t.Errorf("printSnapshots of a damaged snapshot: %q", got)
	}
}

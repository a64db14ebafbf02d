package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `agentmem eval`, which older pages still name, says where the harness
// went (agentmem-eval) and touches no data dir.
func TestEvalMoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	out, code := agentmemIn(t, dir, "eval", "locomo", "locomo_dev7.json", "--out", "o")
	if code != 1 || !strings.Contains(out, "agentmem-eval") || !strings.Contains(out, "locomo locomo_dev7.json --out o") {
		t.Fatalf("agentmem eval: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("agentmem eval made its data dir: %v", err)
	}
}

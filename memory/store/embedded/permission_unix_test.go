//go:build unix

package embedded_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentmem/memory/store/embedded"
)

// A record file its user may not write: Open says that the data dir must
// be writable, and names the file once.
func TestUnwritableRecordFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("needs a user other than root, whom file permissions do not stop")
	}
	dir := t.TempDir()
	s, err := embedded.Open(ctx, dir, embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "memories.db")
	if err := os.Chmod(db, 0o400); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(db, 0o600) })
	_, err = embedded.Open(ctx, dir, embedded.Options{NoSync: true})
	if err == nil || !strings.Contains(err.Error(), "must be writable") || strings.Count(err.Error(), "memories.db") != 1 {
		t.Fatalf("opening a record file without write permission: %v, want the data dir said to need writing, the file named once", err)
	}
}

package embedded

import (
	"context"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// indexOf returns ns's text index, open and with its pending batch sent.
func (s *Store) indexOf(t testing.TB, ns string) bleve.Index {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	ti := s.texts[ns]
	if ti == nil {
		t.Fatalf("no text index of namespace %q", ns)
	}
	if err := s.use(context.Background(), ti); err != nil {
		t.Fatal(err)
	}
	if err := s.flushText(ns); err != nil {
		t.Fatal(err)
	}
	return ti.idx
}

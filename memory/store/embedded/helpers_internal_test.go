package embedded

import (
	"context"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// openDims4 opens a store in dir for 4-dimensional vectors of the
// embedder "test".
func openDims4(t testing.TB, dir string) *Store {
	t.Helper()
	st, err := Open(context.Background(), dir, Options{NoSync: true, EmbedderID: "test", Dims: 4})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

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

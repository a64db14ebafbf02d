package hybrid

import (
	"slices"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/hybrid/kinds"
)

// A document's entities are its text's and its speaker's: the same text
// under another speaker has that speaker's name instead.
func TestDocEntities(t *testing.T) {
	day := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	ms := []memory.Memory{
		{ID: "s:0", Namespace: "n", SessionID: "s", SessionDate: day, Role: "user", Speaker: "Caroline", Text: "Melanie and I saw Hamlet in Paris on 3 May 2023."},
		{ID: "s:1", Namespace: "n", SessionID: "s", SessionDate: day, Turn: 1, Role: "assistant", Speaker: "Melanie", Text: "Melanie and I saw Hamlet in Paris on 3 May 2023."},
	}
	a, b := Doc(ms[0]), Doc(ms[1])
	if !slices.Contains(a.Entities, "caroline") || !slices.Contains(a.Entities, "hamlet") || slices.Contains(b.Entities, "caroline") || !slices.Contains(b.Entities, "melanie") {
		t.Errorf("the same text under two speakers: entities %q and %q", a.Entities, b.Entities)
	}
	if a.Text != ms[0].Text || a.SessionID != "s" || a.Namespace != "n" || !a.SessionDate.Equal(day) || a.Speaker != "Caroline" {
		t.Errorf("Doc = %+v", a)
	}
}

// kindsTables pins the kinds table (kinds.Sum) that documents of each
// DocVersion since 7 are derived with.
var kindsTables = map[int]string{7: "b9367817da7e4808"}

// A kinds table written anew (memory/hybrid/kinds/internal/gen: other
// numbers, another WordNet) derives documents differently, and stores
// rebuild their indexes only when DocVersion changes: the table is pinned
// to the version, so it cannot change without one.
func TestDocVersionPinsTheKindsTable(t *testing.T) {
	got := kinds.Sum()
	want, ok := kindsTables[DocVersion]
	switch {
	case !ok:
		t.Fatalf("DocVersion %d pins no kinds table: add %d: %q to kindsTables", DocVersion, DocVersion, got)
	case got != want:
		t.Fatalf("kinds.txt changed (sum %s; DocVersion %d was derived with %s): bump hybrid.DocVersion, say why in its comment, and pin the new sum in kindsTables", got, DocVersion, want)
	}
}

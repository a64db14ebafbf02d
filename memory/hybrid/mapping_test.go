package hybrid

import (
	"slices"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/hybrid/forms"
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

// tables pins the tables that documents of each DocVersion since 7 are
// derived with: the kinds table (kinds.Sum) and, since 8, the irregular
// verbs and British spellings (forms.Sum), since 9 with the adjectives'
// degrees, since 10 with the irregular plurals (11: the review's mends;
// 12: the same tables, the entities' dates with slashes).
var tables = map[int]string{7: "b9367817da7e4808", 8: "b9367817da7e4808 aad47043fb54e0f3", 9: "b9367817da7e4808 ad0093474728950f", 10: "b9367817da7e4808 0d43ba315f8571a7", 11: "b9367817da7e4808 a4b34af140f69276", 12: "b9367817da7e4808 a4b34af140f69276"}

// A kinds table written anew (memory/hybrid/kinds/internal/gen: other
// numbers, another WordNet), or forms added or removed, derive documents
// differently, and stores rebuild their indexes only when DocVersion
// changes: the tables are pinned to the version, so they cannot change
// without one.
func TestDocVersionPinsTheTables(t *testing.T) {
	got := kinds.Sum() + " " + forms.Sum()
	want, ok := tables[DocVersion]
	switch {
	case !ok:
		t.Fatalf("DocVersion %d pins no tables: add %d: %q to tables", DocVersion, DocVersion, got)
	case got != want:
		t.Fatalf("kinds.txt or the forms' table changed (sums %s; DocVersion %d was derived with %s): bump hybrid.DocVersion, say why in its comment, and pin the new sums in tables", got, DocVersion, want)
	}
}

package hybrid

import (
	"slices"
	"testing"
	"time"

	"agentmem/memory"
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

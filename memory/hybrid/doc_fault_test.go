package hybrid

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"agentmem/memory"
)

// A panic in reading a memory's text for its derived fields (as "Or
// 2024?" once made in the dates' finder) leaves those fields empty and is
// logged with the memory's id: the memory is still indexed by its text,
// speaker and date, and nothing panics past Doc.
func TestDocSurvivesAFaultInItsDerivedFields(t *testing.T) {
	m := memory.Memory{ID: "s1:0", Namespace: "ns", SessionID: "s1", Role: "user", Speaker: "Maria", Text: "We visited Oregon in May 2023."}
	whole := Doc(m)
	if len(whole.Entities) < 2 || whole.Kinds == "" {
		t.Fatalf("Doc(%q) = entities %q, kinds %q: want the text's entities and kinds", m.Text, whole.Entities, whole.Kinds)
	}

	var log bytes.Buffer
	old, oldDerive := slog.Default(), deriveFields
	slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
	deriveFields = func(string) ([]string, string, string) { panic("index out of range [-1]") }
	defer func() { slog.SetDefault(old); deriveFields = oldDerive }()

	d := Doc(m)
	if d.Text != m.Text || d.Namespace != "ns" || d.Speaker != "Maria" || strings.Join(d.Entities, ",") != "maria" || d.Kinds != "" || d.Forms != "" {
		t.Errorf("Doc after a fault = %+v: want the text, the speaker as its one entity, and no derived fields", d)
	}
	if got := log.String(); !strings.Contains(got, "memory=s1:0") || !strings.Contains(got, "index out of range") {
		t.Errorf("the fault was logged as %q: want the memory's id and the panic", got)
	}
}

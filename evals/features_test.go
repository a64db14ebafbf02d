package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// --features logs, for each question of the first configuration with
// evidence turns, every candidate of its recall with its features by name
// and whether it holds evidence; the other configurations log nothing.
func TestFeatureLog(t *testing.T) {
	d := loadLoCoMo(t)
	var buf bytes.Buffer
	o := testOptions(t, d, t.TempDir(), inProcess(t))
	k5 := Baseline()
	k5.Name, k5.K = "k=5", 5
	o.Configs = []Config{Baseline(), k5}
	o.Features = NewFeatureLog(&buf, "locomo")
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var rows []featureRow
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var r featureRow
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	withEvidence := 0
	for _, r := range out.Results {
		if r.Config == "base" && len(r.Evidence) > 0 {
			withEvidence++
		}
	}
	if len(rows) != withEvidence || len(rows) == 0 {
		t.Fatalf("%d rows, want one for each of the %d base questions with evidence", len(rows), withEvidence)
	}
	evidence, scored := 0, 0
	for _, r := range rows {
		if r.Bench != "locomo" || r.Unit == "" || r.Question == "" || r.Query == "" || len(r.Names) == 0 || !slices.Contains(r.Names, "score") {
			t.Fatalf("row %+v", r)
		}
		for _, c := range r.Candidates {
			if len(c.Features) != len(r.Names) {
				t.Fatalf("%s %s: %d features, %d names", r.Question, c.ID, len(c.Features), len(r.Names))
			}
			if c.Evidence {
				evidence++
			}
			if c.Score > 0 {
				scored++
			}
		}
	}
	if evidence == 0 {
		t.Error("no candidate marked as evidence")
	}
	if scored == 0 {
		t.Error("no candidate has the ranking's score")
	}
}

package evals

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func loadLME(t *testing.T, path string) *Dataset {
	return loadFixture(t, path, LoadLongMemEval)
}

func TestLoadLongMemEval(t *testing.T) {
	for _, path := range []string{"testdata/longmemeval_mini.json", "testdata/longmemeval_mini.json.gz"} {
		t.Run(path, func(t *testing.T) {
			d := loadLME(t, path)
			if len(d.Units) != 3 || d.Questions() != 3 || d.Turns() != 18 {
				t.Fatalf("units %d questions %d turns %d", len(d.Units), d.Questions(), d.Turns())
			}
			ssu := d.Units[0]
			if want := time.Date(2023, 5, 30, 23, 40, 0, 0, time.UTC); !ssu.Now.Equal(want) || !ssu.Questions[0].Date.Equal(want) {
				t.Errorf("Now %v, want %v", ssu.Now, want)
			}
			q := ssu.Questions[0]
			ev := slices.IndexFunc(ssu.Sessions, func(s Session) bool { return s.Evidence })
			if id := ssu.Sessions[ev].ID; q.Category != "SSU" || q.Abstain || !slices.Equal(q.EvidenceTurns, []string{id + ":0"}) || !slices.Equal(q.EvidenceSessions, []string{id}) {
				t.Errorf("SSU question %+v", q)
			}
			// the benchmark's session ids name the evidence: agentmem, and
			// the answer model through recall's text, never see them
			for _, u := range d.Units {
				for _, s := range u.Sessions {
					if strings.Contains(s.ID, "answer") || strings.Contains(s.ID, "sharegpt") || strings.Contains(s.ID, "ultrachat") {
						t.Errorf("session id %q is the benchmark's", s.ID)
					}
				}
			}
			ms := d.Units[1].Questions[0]
			if ms.Answer != "3" || ms.Category != "MS" || len(ms.EvidenceSessions) != 2 {
				t.Errorf("MS question: answer %q, category %s, evidence sessions %v", ms.Answer, ms.Category, ms.EvidenceSessions)
			}
			abs := d.Units[2].Questions[0]
			if !abs.Abstain || !abs.NoRetrieval || abs.Category != "KU" {
				t.Errorf("abstention question %+v", abs)
			}
			if !d.Units[1].Sessions[0].Evidence || d.Units[1].Sessions[1].Evidence {
				t.Error("evidence sessions not marked")
			}
		})
	}
}

func TestSessionIDs(t *testing.T) {
	ids := sessionIDs{}
	for _, tc := range []struct{ in, want string }{
		{"answer_4be1b6b4_2", "answer_4be1b6b4_2"},
		{"sharegpt_yy wf:0", "sharegpt_yy_wf_0"},
		{"answer_4be1b6b4_2", "answer_4be1b6b4_2+2"},
		{"", "session"},
	} {
		if got := ids.add(tc.in); got != tc.want {
			t.Errorf("add(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

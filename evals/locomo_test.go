package evals

import (
	"io"
	"os"
	"slices"
	"testing"
	"time"
)

func loadLoCoMo(t testing.TB) *Dataset {
	return loadFixture(t, "testdata/locomo_mini.json", LoadLoCoMo)
}

func loadFixture(t testing.TB, path string, load func(io.Reader) (*Dataset, error)) *Dataset {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := load(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLoadLoCoMo(t *testing.T) {
	d := loadLoCoMo(t)
	if len(d.Units) != 2 || d.Questions() != 7 || d.Turns() != 10 {
		t.Fatalf("units %d questions %d turns %d, want 2, 7, 10", len(d.Units), d.Questions(), d.Turns())
	}
	u := d.Units[0]
	// session_3 has a date and no turns: it must not become a session.
	if len(u.Sessions) != 2 {
		t.Fatalf("conv-1 has %d sessions, want 2", len(u.Sessions))
	}
	if want := time.Date(2023, 6, 28, 12, 0, 0, 0, time.UTC); !u.Now.Equal(want) {
		t.Errorf("Now = %v, want the day after the last session with turns, %v", u.Now, want)
	}
	if s := u.Sessions[0]; !s.Date.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) {
		t.Errorf("session 1 date %v", s.Date)
	}
	first, dog := u.Sessions[0].Turns[0], u.Sessions[0].Turns[3]
	if first.Role != "user" || first.Speaker != "Caroline" || dog.Role != "assistant" || dog.Speaker != "Melanie" {
		t.Errorf("roles: %+v %+v", first, dog)
	}
	if dog.Text != "Biscuit is a golden retriever, very playful. [shared a photo: a photo of a golden retriever on a lawn]" {
		t.Errorf("caption not appended: %q", dog.Text)
	}
	want := []struct {
		cat      string
		evidence []string
		answer   string
		abstain  bool
	}{
		{"single-hop", []string{"D1:4"}, "golden retriever", false},
		{"multi-hop", []string{"D2:2", "D2:4"}, "Lisbon", false},
		{"temporal", []string{"D1:2"}, "the week before 8 May 2023", false},
		{"open-domain", []string{"D1:1", "D2:4"}, "Yes", false},
		{"adversarial", []string{"D2:1"}, "", true},
		{"temporal", nil, "2023", false},
	}
	for i, w := range want {
		q := u.Questions[i]
		if q.Category != w.cat || !slices.Equal(q.EvidenceTurns, w.evidence) || q.Answer != w.answer || q.Abstain != w.abstain {
			t.Errorf("q%d = %s %v %q abstain=%v, want %s %v %q %v", i, q.Category, q.EvidenceTurns, q.Answer, q.Abstain, w.cat, w.evidence, w.answer, w.abstain)
		}
	}
	if u.Questions[4].Adversarial != "cello" {
		t.Errorf("adversarial answer %q", u.Questions[4].Adversarial)
	}
	if !slices.Equal(u.Questions[1].EvidenceSessions, []string{"session_2"}) {
		t.Errorf("evidence sessions %v", u.Questions[1].EvidenceSessions)
	}
}

func TestParseEvidence(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{[]string{"D1:3"}, []string{"D1:3"}},
		{[]string{"D8:6; D9:17"}, []string{"D8:6", "D9:17"}},
		{[]string{"D9:1 D4:4 D4:6"}, []string{"D9:1", "D4:4", "D4:6"}},
		{[]string{"D:11:26"}, []string{"D11:26"}},
		{[]string{"D"}, nil},
		{[]string{"D01:05", "x"}, []string{"D1:5"}},
	} {
		if got := parseEvidence(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("parseEvidence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

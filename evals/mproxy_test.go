package evals

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// haystacks is a dataset of n questions with three sessions each, one of
// them an evidence session.
func haystacks(n int) *Dataset {
	d := &Dataset{Name: "longmemeval"}
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		u := Unit{ID: fmt.Sprintf("q%d", i)}
		for j := range 3 {
			id := fmt.Sprintf("f%d_%d", i, j)
			if j == 1 {
				id = fmt.Sprintf("answer_%d", i)
			}
			u.Sessions = append(u.Sessions, Session{ID: id, Date: base.AddDate(0, 0, i+10*j), Evidence: j == 1,
				Turns: []Turn{{Ref: id + ":0", Role: "user", Text: id}}})
		}
		d.Units = append(d.Units, u)
	}
	return d
}

func TestMProxy(t *testing.T) {
	a, b := haystacks(6), haystacks(6)
	if err := MProxy(a, 5, 7); err != nil {
		t.Fatal(err)
	}
	if err := MProxy(b, 5, 7); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Units, b.Units) {
		t.Error("the same seed gave different haystacks")
	}
	for _, u := range a.Units {
		if len(u.Sessions) != 8 {
			t.Fatalf("%s has %d sessions, want 3+5", u.ID, len(u.Sessions))
		}
		seen := map[string]bool{}
		evidence := 0
		first, last := u.Sessions[0].Date, u.Sessions[len(u.Sessions)-1].Date
		for i, s := range u.Sessions {
			if seen[s.ID] {
				t.Errorf("%s: session %s twice", u.ID, s.ID)
			}
			seen[s.ID] = true
			if strings.HasPrefix(s.ID, "answer_") {
				evidence++
			}
			if i > 0 && s.Date.Before(u.Sessions[i-1].Date) {
				t.Errorf("%s: sessions out of date order", u.ID)
			}
			if s.Date.Before(first) || s.Date.After(last) {
				t.Errorf("%s: borrowed session dated outside the haystack", u.ID)
			}
		}
		if evidence != 1 {
			t.Errorf("%s has %d evidence sessions, want its own 1", u.ID, evidence)
		}
	}
	c := haystacks(6)
	MProxy(c, 5, 8)
	if reflect.DeepEqual(a.Units, c.Units) {
		t.Error("another seed gave the same haystacks")
	}
	if err := MProxy(haystacks(2), 5, 1); err == nil {
		t.Error("asking for more fillers than exist did not fail")
	}
}

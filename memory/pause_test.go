package memory

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A failed reranker is paused 5 s, then twice as long after each failure
// in a row, up to 2 minutes; an answer ends the pauses.
func TestRerankPause(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &pause{now: func() time.Time { return now }}
	if why := p.paused(); why != "" {
		t.Fatalf("paused before any failure: %s", why)
	}
	for i, want := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second} {
		if d := p.failed(errors.New("status 503")); d != want {
			t.Errorf("failure %d: pause %v, want %v", i+1, d, want)
		}
		if why := p.paused(); !strings.Contains(why, "not asked") || !strings.Contains(why, "status 503") {
			t.Errorf("failure %d: %q", i+1, why)
		}
		now = now.Add(want)
		if why := p.paused(); why != "" {
			t.Errorf("still paused after %v: %s", want, why)
		}
		if i == 2 {
			break // the recall asking again is left out there, for below
		}
	}
	// when a pause ends, one recall asks again; the others do without
	if why := p.paused(); !strings.Contains(why, "another recall is asking") {
		t.Errorf("a second recall at the end of a pause: %q", why)
	}
	for range 20 {
		now = p.until
		p.paused()
		p.failed(errors.New("timeout"))
	}
	if d := p.until.Sub(now); d != rerankPauseMax {
		t.Errorf("pause after many failures %v, want %v", d, rerankPauseMax)
	}
	// recalls that asked before the pause began and fail during it count
	// as the same outage
	fails, until := p.fails, p.until
	for range 5 {
		p.failed(errors.New("timeout"))
	}
	if p.fails != fails || !p.until.Equal(until) {
		t.Errorf("failures during a pause: %d failures until %v, want %d until %v", p.fails, p.until, fails, until)
	}
	p.ok()
	if why := p.paused(); why != "" {
		t.Errorf("paused after an answer: %s", why)
	}
	if d := p.failed(errors.New("again")); d != rerankPauseMin {
		t.Errorf("the first failure after an answer pauses %v, want %v", d, rerankPauseMin)
	}
}

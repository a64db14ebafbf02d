package memory

import (
	"testing"
	"time"
)

// A question is answered by a digest when, outside the periods it names,
// it says nothing but stop words and words that ask what happened in
// general; a name, a topic or a question without a period asks for a
// search.
func TestAsksOnlyOfPeriods(t *testing.T) {
	now := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC) // a Thursday
	s := &Service{now: func() time.Time { return now }, loc: time.UTC}
	for q, want := range map[string]bool{
		"What did we work on last week?":                      true,
		"What happened in October?":                           true,
		"what did we do on Monday?":                           true,
		"Summarize yesterday.":                                true,
		"What did we talk about two weeks ago?":               true,
		"what was I doing on 3 November 2026":                 true,
		"Recap of last week and the week before last.":        true,
		"What did we decide about caching last week?":         false,
		"What did I ask you about yesterday?":                 true,
		"What did we accomplish last month?":                  true,
		"What did we do in the past few days?":                true,
		"What happened since Monday?":                         true,
		"What did you tell me last week?":                     true,
		"Where did we go in October?":                         true,
		"Did we get anything done today?":                     true,
		"What did I show you last week?":                      true,
		"What did we do last week? What did we do last week?": true,
		"What did we do today?":                               true,
		// plans and duties, a name that is also a word, a period ahead
		"What do I have to do this week?":      false,
		"What should I do today?":              false,
		"What is on my to do list today?":      false,
		"What did I say I would do this week?": false,
		"What do we have on this week?":        false,
		"What's happening next week?":          false,
		"What did Will say last week?":         false,
		// words read whole, not by a stem of five letters
		"What happened to my shoulder last week?":    false,
		"What did we convert last week?":             false,
		"What did Jon do last week?":                 false,
		"What happened to the migration in October?": false,
		"What did we work on?":                       false, // no period
		"What's new?":                                false,
		"":                                           false,
	} {
		if got := asksOnlyOfPeriods(q, s.queryPeriods(q)); got != want {
			t.Errorf("asksOnlyOfPeriods(%q) = %v, want %v (periods %v)", q, got, want, s.queryPeriods(q))
		}
	}
}

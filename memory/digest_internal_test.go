package memory

import (
	"strings"
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
		"What did we talk about the other day?":               true,
		"what was I doing on 3 November 2026":                 true,
		"Recap of last week and the week before last.":        true,
		"What did we decide about caching last week?":         false,
		"What did I ask you about yesterday?":                 true,
		"What did we accomplish last month?":                  true,
		"What did we do in the past few days?":                true,
		"What happened since Monday?":                         true,
		"What did you tell me last week?":                     true,
		"Where did we go in October?":                         false, // "go": a language too
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
		// asked of now or of a plan: no word of the past
		"Tell me about October.":         false,
		"What's happening Monday?":       false,
		"What's on today?":               false,
		"What do we do in December?":     false,
		"What have we got on this week?": false,
		// a span back to now, or a period named as past, says the past;
		// so does a recap's noun
		"Tell me about last week.":                   true,
		"Catch me up on last week":                   true,
		"Give me a rundown of yesterday":             true,
		"Give me a summary of October":               true,
		"Any highlights from the previous week?":     true,
		"What's new in the last 48 hours?":           true,
		"What's up from a few days back?":            true,
		"What do we have from the week before last?": true,
		"What's new since Monday?":                   true,
		"What happened between Tuesday and Friday?":  true,
		// "the last week of" a month is no span back to now
		"What's on the last week of December?":  false,
		"What about the last week of December?": false,
		"What's new in the past few days?":      true,
		// a favour, "up to", a possessive, a greeting
		"Can you recap yesterday?":                true,
		"Could you summarize last week?":          true,
		"What were we up to last week?":           true,
		"Recap yesterday's session.":              true,
		"Recap yesterday's.":                      true,
		"Summarize last week's work.":             true,
		"Hey, what did we do yesterday?":          true,
		"What discussions did we have yesterday?": false, // "discussions", a topic
		// words read whole, not by a stem of five letters
		"What happened to my shoulder last week?": false,
		"What did we convert last week?":          false,
		// a third review's: code, numbers, a negation, a reported plan, a
		// person, a period as a topic or ahead, a quote
		"What did we do about #1234 last week?":                     false,
		"What did we do about the 404s yesterday?":                  false,
		"What did we do with s3 yesterday?":                         false,
		"What did we do about the 🐛 yesterday?":                     false,
		"What did we do with get() yesterday?":                      false,
		"What did we do with list.go yesterday?":                    false,
		"What did we do with if/else yesterday?":                    false,
		"What did we not do last week?":                             false,
		"What didn't we get done yesterday?":                        false,
		"What did I say I might do this week?":                      false,
		"What did we say we were doing this week?":                  false,
		"What did we talk about doing today?":                       false,
		"What did I have on this week?":                             false,
		"What was on my list for today?":                            false,
		"What did she ask yesterday?":                               false,
		"What did we say about Friday?":                             false,
		"What did we say about next week yesterday?":                false,
		"What did we do yesterday and what do we do tomorrow?":      false,
		"What did we say about 'list' yesterday?":                   false,
		"Tell me what's on this week":                               false,
		"What did we do with sessions last week?":                   false,
		"What did I miss yesterday?":                                true,
		"What did we do in the week of Nov 9?":                      true,  // the ISO week that holds it
		"What did we do the weekend of May 6?":                      false, // not read as a weekend
		"What changed since Monday?":                                true,
		"What did we talk about last week, and what did we decide?": false,
		"What did Jon do last week?":                                false,
		"What happened to the migration in October?":                false,
		"What did we work on?":                                      false, // no period
		"What's new?":                                               false,
		"":                                                          false,
	} {
		if got := asksOnlyOfPeriods(q, s.queryPeriods(q), now); got != want {
			t.Errorf("asksOnlyOfPeriods(%q) = %v, want %v (periods %v)", q, got, want, s.queryPeriods(q))
		}
	}
	// a long prompt asks more than its period, whatever its words
	long := "What did we do yesterday?" + strings.Repeat(" so", questionWordsRead)
	if asksOnlyOfPeriods(long, s.queryPeriods(long), now) {
		t.Errorf("a prompt of %d words is a digest", questionWordsRead+5)
	}
}

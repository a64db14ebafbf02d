package memory

import (
	"strings"
	"testing"
)

// A question that asks for several things is told from one that asks
// for one by its form alone: "both", "how many" of a plural noun, "what
// are", or "what"/"which" of a noun phrase ending in a plural noun before
// its verb; a name, a unit of time or another language asks for one.
func TestAsksForSeveral(t *testing.T) {
	for q, want := range map[string]bool{
		"Which cities has Jon visited?":                        true,
		"What martial arts has John done?":                     true,
		"What kind of deals did Tim sign with Nike?":           true,
		"Which of Joanna's screenplays were rejected?":         true,
		"How many books did I read this year?":                 true,
		"How many car shows has Dave attended?":                true,
		"How many times did I go hiking?":                      true,
		"How many people came to the party?":                   true,
		"What are Joanna's hobbies?":                           true,
		"Did Jon and Gina both dance as children?":             true,
		"How many hours have I spent playing games in total?":  true,
		"What is the total cost of the bowl and the collar?":   true,
		"How long did the two books take combined?":            true,
		"How many days altogether did the trips take?":         true,
		"what restaurants did I mention":                       true,
		"When did Jon go to Paris?":                            false,
		"What is Jon's favorite food?":                         false,
		"What kind of car does Evan drive?":                    false,
		"What does Melanie do to relax?":                       false,
		"What news did he share?":                              false,
		"What helps Joanna stay focused?":                      false,
		"How many months ago did I move?":                      false,
		"How many days did the trip take?":                     false,
		"Which friend of Lucas has a dog?":                     false, // a name, not a plural
		"What series has she been watching?":                   false,
		"Quelles villes a-t-il visitées ?":                     false,
		"我去过哪些城市？":                                             false,
		"":                                                     false,
		"What":                                                 false,
		"Where has Maria made friends?":                        false,
		"WHAT CITIES HAVE I VISITED":                           true, // capitals say no names
		"What Cities Have I Visited?":                          true, // nor does title case
		"Which PRs did I merge last week?":                     true,
		"How many APIs did we deprecate?":                      true,
		"Which tests failed last week?":                        true,
		"What files changed in the last refactor?":             true,
		"Which of the benchmarks regressed?":                   true,
		"Which endpoints didn't have tests?":                   true,
		"Which services haven’t been migrated?":                true,
		"List the restaurants I liked.":                        true,
		"Tell me what dependencies we upgraded.":               true,
		"How many different open source libraries did we try?": true,
		"What’re the steps to deploy?":                         true,
		"Who are my teammates?":                                true,
		"What are you working on?":                             false,
		"What are we doing about the flaky CI?":                false,
		"Who are you?":                                         false,
		"What's my wife's birthday?":                           false,
		"Which database did we pick?":                          false,
		"What helps Joanna stay focused and happy?":            false,
		"What did John and the veterans do at the party?":      false,
		"Which works better, a map or a slice?":                false, // a verb after "which", not a plural
		"which uses less memory":                               false,
		"List comprehension or map?":                           false,
		"which cafe\u0301s did we visit":                       true, // a combining accent
		"Which of my friends live in Paris?":                   true,
		"Which places in Canada did Evan visit?":               true,
		"What'd the tests say about the fix?":                  false,
		"Which holiday season coincides with the wedding?":     false,
		"What did Joanna say about her plans?":                 false,
	} {
		if got := asksForSeveral(q); got != want {
			t.Errorf("asksForSeveral(%q) = %v, want %v", q, got, want)
		}
	}
}

// asksForSeveral never panics, whatever the text, and reads a question's
// form, not its spacing or end: a trailing question mark or space, or
// words past the first questionWordsRead, change nothing.
func FuzzAsksForSeveral(f *testing.F) {
	for _, s := range []string{"Which cities has Jon visited?", "How many PRs did I merge", "what're", "’’", "'s", "which of", "LIST THE", "cafe\u0301s", "Which works better?", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := asksForSeveral(text)
		if asksForSeveral(text+" ?") != got {
			t.Errorf("%q and %q differ", text, text+" ?")
		}
		long := text + strings.Repeat(" word", questionWordsRead)
		if asksForSeveral(long+" both") != asksForSeveral(long) {
			t.Errorf("a word past the first %d of %q is read", questionWordsRead, text)
		}
	})
}

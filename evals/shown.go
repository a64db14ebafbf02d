package evals

import (
	"strings"
	"unicode"
)

// AnswerShown says whether every word of the gold answer appears in the
// context the answer model is given: a check of what a recall shows, not
// only of which memories it returns (a memory shown as an excerpt counts
// as recalled even when the excerpt cuts its answer off). Words are
// compared lower-cased, letters and digits only, without a few function
// words ("the", "of", "and"). nil when the answer has no such word. It
// needs no model, and it errs both ways: a coincidental word counts, a
// paraphrased answer does not; compare configurations with it, never
// read it as accuracy.
func AnswerShown(gold, context string) *bool {
	want := words(gold)
	if len(want) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, w := range words(context) {
		have[w] = true
	}
	shown := true
	for _, w := range want {
		shown = shown && have[w]
	}
	return &shown
}

// shownStop are the words AnswerShown leaves out of a gold answer.
var shownStop = set(strings.Fields("a an the and or of to in on at for with from by as is was were be i my me he she it they their his her"))

func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !shownStop[w] {
			out = append(out, w)
		}
	}
	return out
}

package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"agentmem/memory/hybrid/kinds"
)

// A question that asks for several things ("Which cities has Jon
// visited?", "How many books did I read?", "What do Jon and Gina both
// like?") has its answer spread over memories, often over sessions, and
// the learned order's chances, read one candidate at a time, cannot say
// so: they often stand out for one memory, and the chance budget then
// shows three. By chance, such a question's budget is at least k
// memories shown as excerpts, each with SeveralHeader tokens more
// (recallPassages; EVALS.md, "A question that asks for several things").

// SeveralHeader is what a memory of a question that asks for several
// things is given beyond its excerpt, for its header and speaker
// (measured on LoCoMo dev7 among 6, 10, 15, 20 and 30).
const SeveralHeader = 20

// auxiliaries end the noun phrase a question asks about: "Which cities
// HAS Jon visited?".
var auxiliaries = map[string]bool{"am": true, "is": true, "are": true, "was": true, "were": true, "do": true, "does": true, "did": true, "has": true, "have": true, "had": true, "will": true, "would": true, "can": true, "could": true, "should": true, "might": true, "may": true}

// timeUnits make "how many" ask for a length of time, not several things.
var timeUnits = map[string]bool{"seconds": true, "minutes": true, "hours": true, "days": true, "weeks": true, "months": true, "years": true, "decades": true}

// asksForSeveral reports whether the English question text asks for
// several things: it says "both"; it asks "how many" of a plural noun
// other than a unit of time; it asks "what are" or "which were"; or it
// asks "what" or "which" of a noun phrase that ends in a plural noun
// before its verb ("What martial arts has John done?"). A word written
// with a capital inside the question is a name, never a plural noun.
// Text in other languages asks for nothing here.
func asksForSeveral(text string) bool {
	words := questionWords(text)
	for _, w := range words {
		if w.lower == "both" {
			return true
		}
	}
	for i := 0; i+1 < len(words); i++ {
		switch w := words[i].lower; {
		case w == "how" && words[i+1].lower == "many":
			return pluralAmong(words[i+2:min(len(words), i+5)], true)
		case w == "what" || w == "which":
			if next := words[i+1].lower; next == "are" || next == "were" {
				return true
			}
			for j := i + 1; j < len(words) && j <= i+6; j++ {
				if auxiliaries[words[j].lower] {
					return j > i+1 && pluralAmong(words[j-1:j], false)
				}
			}
			return false
		}
	}
	return false
}

// pluralAmong reports whether the first of words that is a plural noun,
// before any auxiliary, comes (and, countOf, is no unit of time).
func pluralAmong(words []questionWord, countOf bool) bool {
	for _, w := range words {
		if auxiliaries[w.lower] {
			return false
		}
		if !w.name && kinds.Plural(w.lower) {
			return !countOf || !timeUnits[w.lower]
		}
	}
	return false
}

// questionWord is a word of a question, in lower case, and whether it is
// written as a name (capitalised, not the question's first word).
type questionWord struct {
	lower string
	name  bool
}

// questionWords splits text into words of letters and apostrophes.
func questionWords(text string) []questionWord {
	var out []questionWord
	for i, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }) {
		w = strings.Trim(w, "'’")
		if w == "" {
			continue
		}
		first, _ := utf8.DecodeRuneInString(w)
		out = append(out, questionWord{lower: strings.ToLower(w), name: i > 0 && unicode.IsUpper(first)})
	}
	return out
}

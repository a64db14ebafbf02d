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
// HAS Jon visited?" (so do their negations, "didn't", and the subject
// pronouns: "what dependencies WE upgraded").
var auxiliaries = map[string]bool{"am": true, "is": true, "are": true, "was": true, "were": true, "do": true, "does": true, "did": true, "has": true, "have": true, "had": true, "will": true, "would": true, "can": true, "could": true, "should": true, "might": true, "may": true, "must": true, "shall": true}

// subjects are the subject pronouns: "What are YOU working on?" asks what
// one thing is being done.
var subjects = map[string]bool{"i": true, "you": true, "we": true, "they": true, "he": true, "she": true, "it": true}

// prepositions end the noun a "which" question asks about: "Which
// places IN Canada ...".
var prepositions = map[string]bool{"in": true, "of": true, "at": true, "from": true, "for": true, "on": true, "with": true, "about": true, "during": true, "to": true, "by": true}

// determiners may come between "which of" (or "list") and its noun.
var determiners = map[string]bool{"the": true, "my": true, "our": true, "your": true, "his": true, "her": true, "their": true, "its": true, "these": true, "those": true, "all": true}

// sums ask for several things added up: "How many hours have I spent
// playing games in total?", "What is the total cost of the bowl and the
// collar?", "How long did the two books take combined?".
var sums = map[string]bool{"total": true, "altogether": true, "combined": true}

// timeUnits make "how many" ask for a length of time, not several things.
var timeUnits = map[string]bool{"seconds": true, "minutes": true, "hours": true, "days": true, "weeks": true, "months": true, "years": true, "decades": true}

// questionWordsRead bounds the words of a query that are read: a
// question's form is in its first words, and a hook's prompt can be long.
const questionWordsRead = 48

// asksForSeveral reports whether the English question text asks for
// several things. It does when it says "both", or a sum ("total",
// "altogether", "combined": even of a unit of time); starts with "list" and a
// determiner or a plural ("List the restaurants I liked"); asks "how
// many" of a plural noun, within four words, other than a unit of time;
// asks "what", "which" or "who" followed by "are" or "were", unless a
// subject pronoun follows ("What are you working on?" asks for one
// thing); or asks "what" or "which" of a noun phrase whose last word is a
// plural noun (see asksOfPlural: "What martial arts has John done?",
// "Which endpoints didn't have tests?", "what dependencies we upgraded",
// "What files changed?", "Which of the benchmarks regressed?"). The first
// "what", "which", "who" or "how many" decides. A word written with a
// capital inside the question is a name, never a plural noun, unless the
// question is written in capitals or in title case; "PRs" and "APIs" are
// plurals. Text in other languages asks for nothing here.
func asksForSeveral(text string) bool {
	words := questionWords(text)
	if len(words) > 1 && words[0].lower == "list" && (determiners[words[1].lower] || words[1].plural()) {
		return true // "List the restaurants I liked", not "List comprehension or map?"
	}
	for _, w := range words {
		if w.lower == "both" || sums[w.lower] {
			return true
		}
	}
	for i := 0; i+1 < len(words); i++ {
		w, next := words[i].lower, words[i+1].lower
		switch {
		case w == "how" && next == "many":
			return pluralAmong(words[i+2 : min(len(words), i+6)])
		case w == "what" || w == "which" || w == "who":
			if next == "are" || next == "were" {
				return i+2 >= len(words) || !subjects[words[i+2].lower]
			}
			if w == "who" {
				return false
			}
			return asksOfPlural(words[i+1:min(len(words), i+7)], w == "which")
		}
	}
	return false
}

// asksOfPlural reads the words after "what" or "which" (which: whether
// it was "which"): a plural noun ending the noun phrase before an
// auxiliary, its negation, a subject pronoun or a verb in the past; after
// "which", also one right after it and before a preposition ("Which
// places in Canada ...", where "Which season coincides with ..." has a
// verb) or after "which of" ("Which of the benchmarks ..."). A plural
// right after "which" alone says nothing: "Which works better?".
func asksOfPlural(words []questionWord, which bool) bool {
	if which && len(words) > 1 && words[0].lower == "of" {
		j := 1
		if determiners[words[j].lower] {
			j++
		}
		if j < len(words) && words[j].plural() {
			return true
		}
	}
	for j, w := range words {
		if auxiliaries[w.lower] || strings.HasSuffix(w.lower, "n't") || subjects[w.lower] {
			return j > 0 && words[j-1].plural() // "What did ..." asks of no noun
		}
		ends := strings.HasSuffix(w.lower, "ed") || which && j == 1 && prepositions[w.lower]
		if j > 0 && ends && words[j-1].plural() {
			return true
		}
	}
	return false
}

// pluralAmong reports whether a plural noun comes among words before any
// auxiliary, and is no unit of time ("how many books", not "how many
// months").
func pluralAmong(words []questionWord) bool {
	for _, w := range words {
		if auxiliaries[w.lower] {
			return false
		}
		if w.plural() {
			return !timeUnits[w.lower]
		}
	}
	return false
}

// questionWord is a word of a question, in lower case, and how it was
// written: as a name (capitalised inside a question written in lower
// case), or as a plural acronym ("PRs").
type questionWord struct {
	lower   string
	name    bool
	acronym bool
}

// plural reports whether w reads as a plural noun.
func (w questionWord) plural() bool {
	return w.acronym || !w.name && kinds.Plural(w.lower)
}

// questionWords splits the first questionWordsRead words of text (a run
// of letters, their marks and apostrophes, ’ read as ') into words, a
// contraction read as two ("what're": "what", "are"; see contraction).
func questionWords(text string) []questionWord {
	fields, _ := sentenceWords(text, questionWordsRead) // the rest of a long prompt is never split
	cased := caseSaysNames(fields)
	var out []questionWord
	for i, f := range fields {
		f = strings.Trim(strings.ReplaceAll(f, "’", "'"), "'")
		if f == "" {
			continue
		}
		first, _ := utf8.DecodeRuneInString(f)
		w := questionWord{lower: strings.ToLower(f), name: cased && i > 0 && unicode.IsUpper(first), acronym: pluralAcronym(f)}
		base, contracted := contraction(w.lower)
		if contracted == "" {
			out = append(out, w)
			continue
		}
		w.lower = base
		out = append(out, w, questionWord{lower: contracted})
	}
	return out
}

// sentenceWords are the first limit words of text (runs of letters, their
// marks and apostrophes, ’ as well as '), and whether each starts a
// sentence: the first, or the first after a '.', '?' or '!'.
func sentenceWords(text string, limit int) (words []string, starts []bool) {
	inWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) || r == '\'' || r == '’' }
	start := true
	for i := 0; i < len(text) && len(words) < limit; {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !inWord(r) {
			start = start || r == '.' || r == '?' || r == '!'
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !inWord(r) {
				break
			}
			j += n
		}
		words, starts = append(words, text[i:j]), append(starts, start)
		start, i = false, j
	}
	return words, starts
}

// caseSaysNames reports whether a capital inside the question marks a
// name: the question has a lower-case letter, and not every word of two
// letters or more starts with a capital (title case).
func caseSaysNames(fields []string) bool {
	lower, title := false, true
	for _, f := range fields {
		for _, r := range f {
			lower = lower || unicode.IsLower(r)
		}
		if first, _ := utf8.DecodeRuneInString(f); utf8.RuneCountInString(f) > 1 && !unicode.IsUpper(first) {
			title = false
		}
	}
	return lower && !title
}

// pluralAcronym reports whether w is two capitals or more and a lower-case
// s: "PRs", "APIs", "TODOs".
func pluralAcronym(w string) bool {
	head, ok := strings.CutSuffix(w, "s")
	if !ok || utf8.RuneCountInString(head) < 2 {
		return false
	}
	for _, r := range head {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// contraction splits w ("what're") into its word and the auxiliary it
// contracts ("what", "are"; 've, 'll); contracted is empty for any other
// word. 's and 'd are read as "is" and "did" only after a question word
// ("what's", "what'd"), as elsewhere 's is mostly a possessive and 'd a
// "would" or a "had".
func contraction(w string) (base, contracted string) {
	if b, ok := strings.CutSuffix(w, "'re"); ok {
		return b, "are"
	}
	if b, ok := strings.CutSuffix(w, "'ve"); ok {
		return b, "have"
	}
	if b, ok := strings.CutSuffix(w, "'ll"); ok {
		return b, "will"
	}
	wh := func(b string) bool { return b == "what" || b == "who" || b == "which" }
	if b, ok := strings.CutSuffix(w, "'s"); ok && wh(b) {
		return b, "is"
	}
	if b, ok := strings.CutSuffix(w, "'d"); ok && wh(b) {
		return b, "did"
	}
	return w, ""
}

package peers

import (
	"strings"
	"unicode"
)

// stopwords are English function words and question words, which a
// person would not type into a substring search box.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
a about above after again against all also am an and any are as at
be because been before being below between both but by
can could did do does doing done down during each either else ever every
few for from further get got had has have having he her here hers herself
him himself his how i if in into is it its itself just like likely
me might more most much must my myself no nor not now of off on once only or
other ought our ours ourselves out over own same shall she should so some
such than that the their theirs them themselves then there these they this
those through to too under until up upon us very was we were what whatever
when where whether which while who whom whose why will with would yet you
your yours yourself yourselves
kind sort type thing things ones one many way something anything
would've could've should've isn aren wasn weren don doesn didn
`) {
		stopwords[w] = true
	}
}

// Keywords extracts the words a person would search a substring-search
// memory with: runs of letters and digits, lower-cased, without stopwords,
// without words shorter than 3 characters, each once, in question order.
// A plural or verb ending is cut ("paintings" -> "painting", "painted" ->
// "paint") when at least 4 characters remain, so that the substring also
// matches the other forms of the word ("paint" is in "painting").
func Keywords(question string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 3 || stopwords[w] {
			continue
		}
		w = stem(w)
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// stem cuts one common English ending when at least 4 characters remain.
func stem(w string) string {
	for _, suf := range []string{"ies", "ing", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			if suf == "s" && strings.HasSuffix(w, "ss") {
				return w
			}
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

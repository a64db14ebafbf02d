// Package kinds says what kind of thing the nouns of a text name, from
// WordNet 3.0: "a road trip to Oregon" names a state, "a car accident" a
// mishap, "my violin" a stringed instrument. A memory's kinds are indexed
// beside its text (hybrid.FieldKinds), so "Which states did she drive
// through?" matches a turn about Oregon that shares no word with it:
// knowledge that neither BM25 nor the built-in sentence encoder has.
//
// The table (kinds.txt, in the binary's read-only data, read where a
// lookup falls: nothing is loaded or decompressed at start-up;
// internal/gen writes it from WordNet's noun files) holds, for each noun,
// the words of the synsets above its two most frequent senses, two levels
// up, leaving out the most general ones (fewer than six levels below
// WordNet's root). WordNet's licence is in LICENSE-WordNet.
package kinds

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

//go:generate go run ./internal/gen -dict /usr/share/wordnet -out kinds.txt

//go:embed kinds.txt
var table string

// Sum is the first 16 hex digits of the table's SHA-256: what a test
// pins to hybrid.DocVersion, so that a table written anew cannot reach a
// store without the version that makes it rebuild its indexes.
func Sum() string {
	sum := sha256.Sum256([]byte(table))
	return hex.EncodeToString(sum[:8])
}

// stop is bleve's English stop words (those of the text field's analyzer).
var stop = sync.OnceValue(func() analysis.TokenMap {
	m := analysis.NewTokenMap()
	_ = m.LoadBytes(en.EnglishStopWords) // a constant list (TestOf would fail)
	return m
})

// Of returns the kinds of the nouns in text, space-separated, each once,
// in the order the nouns come (each noun's nearest kinds first). Words of
// one or two letters and English stop words are skipped; plurals are read
// as their singular (WordNet's rules and irregular forms). Of is safe for
// concurrent use.
func Of(text string) string {
	var out []string
	words, kinds := map[string]bool{}, map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), notWord) {
		w = strings.Trim(w, "-")
		if len(w) <= 2 || words[w] || stop()[w] {
			continue
		}
		words[w] = true
		for k := range strings.FieldsSeq(kindsOf(w)) {
			if !kinds[k] {
				kinds[k] = true
				out = append(out, k)
			}
		}
	}
	return strings.Join(out, " ")
}

func notWord(r rune) bool { return !unicode.IsLetter(r) && r != '-' }

// lines is where each of the table's lines starts, found at the first
// lookup (a scan of the table, about a millisecond; 180 KB).
var lines = sync.OnceValue(func() []uint32 {
	starts := make([]uint32, 0, strings.Count(table, "\n"))
	for i := 0; i < len(table); {
		starts = append(starts, uint32(i))
		i += strings.IndexByte(table[i:], '\n') + 1
	}
	return starts
})

// line returns the value of w's line in the table (a binary search).
func line(w string) (string, bool) {
	starts := lines()
	key := func(i int) (string, string) {
		l := table[starts[i]:]
		l = l[:strings.IndexByte(l, '\n')]
		k, v, _ := strings.Cut(l, "\t")
		return k, v
	}
	i := sort.Search(len(starts), func(i int) bool { k, _ := key(i); return k >= w })
	if i == len(starts) {
		return "", false
	}
	if k, v := key(i); k == w {
		return v, true
	}
	return "", false
}

// plural is WordNet's morphology of nouns (morphy's detachment rules), in
// its order.
var plural = []struct{ suffix, repl string }{
	{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"},
}

// kindsOf returns the kinds of the noun w: of w itself, of the noun an
// irregular plural is a form of, or of the first singular the rules give
// that the table has.
func kindsOf(w string) string {
	if v, ok := line(w); ok {
		if base, irregular := strings.CutPrefix(v, "="); irregular {
			if v, _ = line(base); strings.HasPrefix(v, "=") {
				return "" // gen never writes a chain (TestTable)
			}
		}
		return v
	}
	for _, p := range plural {
		if base, ok := strings.CutSuffix(w, p.suffix); ok && base != "" {
			if v, ok := line(base + p.repl); ok && !strings.HasPrefix(v, "=") {
				return v
			}
		}
	}
	return ""
}

// irregular holds the everyday plurals that WordNet's table of forms
// leaves out here, their singulars too general to have kinds ("mice",
// "teeth", "feet" and "geese" are the table's).
var irregular = map[string]bool{"people": true, "children": true, "men": true, "women": true}

// singular holds everyday nouns ending in s that are not plurals (a word
// ending in ics, "physics", "politics", is read as one too).
var singular = map[string]bool{"news": true, "means": true, "chaos": true, "alias": true, "whereabouts": true, "series": true, "species": true, "lens": true, "atlas": true, "bias": true, "canvas": true, "diabetes": true, "measles": true, "mumps": true, "herpes": true, "billiards": true, "thanks": true}

// Plural reports whether the word w (lower case) reads as a plural noun:
// an irregular plural ("people", "mice", WordNet's forms), or a word of
// four letters or more ending in s but not in ss, us, is, ics or 's, nor
// a singular noun such as "news" or "series". Plural is safe for
// concurrent use.
func Plural(w string) bool {
	if irregular[w] {
		return true
	}
	if v, ok := line(w); ok && strings.HasPrefix(v, "=") {
		return true
	}
	if utf8.RuneCountInString(w) < 4 || !strings.HasSuffix(w, "s") || singular[w] {
		return false
	}
	for _, end := range []string{"ss", "us", "is", "ics", "'s", "’s"} {
		if strings.HasSuffix(w, end) {
			return false
		}
	}
	return true
}

// Package verbs gives the base of the past forms of common irregular
// English verbs, which the Porter stemmer leaves apart from it: "bought"
// is not "buy", "met" is not "meet". A question asks with the base after
// "did" ("What did Caroline buy?") where the conversation said the past
// ("I bought a new guitar"). A memory's document indexes the bases of its
// text's forms beside the text, in the same field (hybrid.IndexDoc.Verbs),
// and a query's forms are matched as their bases (Rewrite), so the two
// meet whichever form each uses, on every store: the analyzers stay
// bleve's own.
package verbs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// table lists common irregular verbs, each line a base and its past
// forms. Forms that are mostly another word in conversation are left out:
// "saw" (the tool), "shot" (a photo, a vaccine), "rose" (a name), "lay"
// and "lain", "bit", "spoke", "wound", "drunk", "broke" ("I'm broke"),
// "fed" ("fed up"), "rang" (whose base is the jewel too), "left" ("turn
// left", "left-handed"); so are the forms of be, do and have, which are
// stop words.
const table = `
become became
begin began begun
break broken
bring brought
build built
buy bought
catch caught
choose chose chosen
come came
dig dug
draw drew drawn
drink drank
drive drove driven
eat ate eaten
fall fell fallen
feel felt
fight fought
find found
fly flew flown
forget forgot forgotten
freeze froze frozen
get got gotten
give gave given
go went gone
grow grew grown
hang hung
hear heard
hide hid hidden
hold held
keep kept
know knew known
lead led
learn learnt
lend lent
lose lost
make made
mean meant
meet met
pay paid
ride rode ridden
run ran
say said
see seen
seek sought
sell sold
send sent
shake shook shaken
sing sang sung
sit sat
sleep slept
spend spent
stand stood
steal stole stolen
strike struck
swim swam swum
take took taken
teach taught
tell told
think thought
throw threw thrown
understand understood
wake woke woken
wear wore worn
win won
write wrote written
`

// base maps each form to its base; forms maps each base to its forms.
var base, forms = func() (map[string]string, map[string][]string) {
	b, f := map[string]string{}, map[string][]string{}
	for line := range strings.Lines(table) {
		w := strings.Fields(line)
		if len(w) < 2 {
			continue
		}
		for _, form := range w[1:] {
			b[form] = w[0]
		}
		f[w[0]] = w[1:]
	}
	return b, f
}()

// Sum is the first 16 hex digits of the table's SHA-256: what a test
// pins to hybrid.DocVersion, so that the table cannot change what stores
// index without the version that makes them rebuild their indexes.
func Sum() string {
	sum := sha256.Sum256([]byte(table + rules))
	return hex.EncodeToString(sum[:8])
}

// Base is the base of a past form in lower case ("bought" → "buy"), and
// "" for any other word.
func Base(word string) string { return base[word] }

// Forms are the past forms of a base ("buy" → "bought"), nil for any
// other word.
func Forms(word string) []string { return forms[word] }

// Bases are the bases of the past forms in text, one for each time a form
// occurs, separated by spaces: "We met and went home" → "meet go".
func Bases(text string) string {
	var out []string
	words(text, func(_, _ int, b string) {
		out = append(out, b)
	})
	return strings.Join(out, " ")
}

// Rewrite is text with each past form followed by its base: "the day we
// met" → "the day we met meet". The form stays, so a memory that says it
// still matches every word of the query, and a name typed in lower case
// ("what did drew say") still finds it.
func Rewrite(text string) string {
	var out strings.Builder
	last := 0
	words(text, func(_, j int, b string) {
		out.WriteString(text[last:j])
		out.WriteByte(' ')
		out.WriteString(b)
		last = j
	})
	if last == 0 {
		return text
	}
	out.WriteString(text[last:])
	return out.String()
}

// rules names the version of words, joined and lookup: Sum covers them
// with the table, so changing what they read as a form (what documents
// hold) changes the sum that hybrid.DocVersion pins. Bump it with them.
const rules = "2"

// words calls f with the bounds and base of each past form in text. A
// form is a word of letters in lower case, or capitalised at the start of
// a sentence ("Went to the market"); capitalised inside one it is a name
// ("Drew", "Won", "Sung"), and so is one of names anywhere; in capitals it
// is an acronym ("LED", "SAT"). A word
// joined to a digit, an underscore, a hyphen or another word by an
// apostrophe or a full stop ("won't", "went.com", "Drew's", "self-taught")
// is no form either.
func words(text string, f func(i, j int, base string)) {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		j := i + n
		lower := unicode.IsLower(r)
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) {
				break
			}
			if !unicode.IsLower(r) {
				lower = false
			}
			j += n
		}
		if b := lookup(text[i:j]); b != "" && !joined(text, i, j) && (lower || !names[b] && capitalised(text, i, j)) {
			f(i, j, b)
		}
		i = j
	}
}

// names are the bases of forms that are also given names (Drew, Won,
// Sung, Hung): capitalised, one of these is a name even at the start of a
// sentence ("Drew said the museum was closed").
var names = map[string]bool{"draw": true, "win": true, "sing": true, "hang": true}

// capitalised reports whether text[i:j] is a word with a capital and then
// lower case letters that starts a sentence: at the start of text, or
// after a sentence's end (". ", "! ", "? ", a line break, a colon), past
// spaces and opening quotes or brackets.
func capitalised(text string, i, j int) bool {
	for _, r := range text[i+1 : j] {
		if !unicode.IsLower(r) {
			return false
		}
	}
	k := i
	for k > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:k])
		switch r {
		case ' ', '\t', '"', '\'', '(', '[', '\u201c', '\u2018':
			k -= n
			continue
		case '\n', '\r', '.', '!', '?', ':':
			return true
		}
		return false
	}
	return true
}

// lookup is the base of w in any case, without making a string: every
// form is 3 to 10 ASCII letters.
func lookup(w string) string {
	if len(w) < 3 || len(w) > 10 {
		return ""
	}
	var buf [10]byte
	for i := range len(w) {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return base[string(buf[:len(w)])]
}

// joined reports whether the letters text[i:j] are part of a longer
// token, as bleve's tokenizer reads one (Unicode's word boundaries):
// next to a digit or an underscore, or joined to a letter by an
// apostrophe, a full stop or a colon ("won't" is not "win't", "went.com"
// no form); or part of a hyphenated word, which bleve splits but which
// names no event ("left-handed", "self-taught", "home-grown").
func joined(text string, i, j int) bool {
	if i > 0 {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		if inWord(r) {
			return true
		}
		if p, _ := utf8.DecodeLastRuneInString(text[:i-n]); midWord(r) && unicode.IsLetter(p) {
			return true
		}
	}
	if j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		if inWord(r) {
			return true
		}
		if p, _ := utf8.DecodeRuneInString(text[j+n:]); midWord(r) && unicode.IsLetter(p) {
			return true
		}
	}
	return false
}

func inWord(r rune) bool  { return r == '_' || r == '-' || unicode.IsDigit(r) }
func midWord(r rune) bool { return r == '\'' || r == '.' || r == ':' || r == '\u2019' }

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
// and "lain", "bit", "spoke", "wound", "drunk"; so are the forms of be, do
// and have, which are stop words.
const table = `
become became
begin began begun
break broke broken
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
feed fed
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
leave left
lend lent
lose lost
make made
mean meant
meet met
pay paid
ride rode ridden
ring rang
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
	sum := sha256.Sum256([]byte(table))
	return hex.EncodeToString(sum[:8])
}

// Base is the base of a past form in lower case ("bought" → "buy"), and
// "" for any other word.
func Base(word string) string { return base[word] }

// Forms are the past forms of a base ("buy" → "bought"), nil for any
// other word.
func Forms(word string) []string { return forms[word] }

// Bases are the bases of the past forms in text, one for each time a form
// occurs, separated by spaces: "We met and went home" → "meet go". A form
// is a word of letters, in any case.
func Bases(text string) string {
	var out []string
	words(text, func(_, _ int, b string) {
		out = append(out, b)
	})
	return strings.Join(out, " ")
}

// Rewrite is text with each past form written as its base, in lower case:
// "When did we meet?" is unchanged, "the day we met" → "the day we meet".
func Rewrite(text string) string {
	var out strings.Builder
	last := 0
	words(text, func(i, j int, b string) {
		out.WriteString(text[last:i])
		out.WriteString(b)
		last = j
	})
	if last == 0 {
		return text
	}
	out.WriteString(text[last:])
	return out.String()
}

// words calls f with the bounds and base of each past form in text. A
// word is a run of letters; one joined to a digit, an underscore or
// another word by an apostrophe or a full stop ("went.com") is no form.
func words(text string, f func(i, j int, base string)) {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) {
				break
			}
			j += n
		}
		if b := lookup(text[i:j]); b != "" && !joined(text, i, j) {
			f(i, j, b)
		}
		i = j
	}
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
// no form).
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

func inWord(r rune) bool  { return r == '_' || unicode.IsDigit(r) }
func midWord(r rune) bool { return r == '\'' || r == '.' || r == ':' || r == '\u2019' }

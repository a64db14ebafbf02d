// Package forms gives the base of the words that the Porter stemmer
// leaves apart from it. The past forms of common irregular verbs: "bought"
// is not "buy", "met" is not "meet", and a question asks with the base
// after "did" ("What did Caroline buy?") where the conversation said the
// past ("I bought a new guitar"). And British spellings, whose base is
// the American one: "colour" is not "color", "organised" not "organized",
// and a user who writes the one reads an assistant who writes the other.
// And the comparatives and superlatives of common adjectives: "older" is
// not "old", and "How much older am I than my sister?" asks about "I'm
// 32 years old"; and irregular plurals: "children" is not "child".
// A memory's document indexes the bases of its text's forms beside the
// text, in the same field (hybrid.IndexDoc.Forms), and a query's forms are
// matched as themselves and as their bases (Rewrite), so the two meet
// whichever form each uses, on every store: the analyzers stay bleve's
// own.
package forms

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
beat beaten
begin began begun
break broken
blow blew blown
bring brought
build built
burn burnt
buy bought
catch caught
choose chose chosen
come came
deal dealt
dig dug
draw drew drawn
dream dreamt
drink drank
drive drove driven
eat ate eaten
fall fell fallen
feel felt
fight fought
flee fled
find found
fly flew flown
forget forgot forgotten
forgive forgave forgiven
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
show shown
sing sang sung
sit sat
sleep slept
speak spoken
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

// spellings lists common words spelt otherwise in British English, each
// line the American spelling (the base) and the British ones, with the
// inflections the stemmer does not join ("organised" stems to "organis",
// "organized" to "organ"; "travelled" and "traveled" both to "travel", so
// they are not listed). Left out: words whose British spelling is another
// word, "cheque" (check), "tyre" (tire), "storey" (story), "kerb"; and
// those whose American stem is another word ("finalized" stems to
// "final", "specialized" to "special", "customized" to "custom").
const spellings = `
color colour
colors colours
colored coloured
colorful colourful
coloring colouring
favorite favourite
favorites favourites
flavor flavour
flavors flavours
flavored flavoured
honor honour
honors honours
honored honoured
humor humour
labor labour
labors labours
neighbor neighbour
neighbors neighbours
neighborhood neighbourhood
neighborhoods neighbourhoods
neighboring neighbouring
behavior behaviour
behaviors behaviours
rumor rumour
rumors rumours
harbor harbour
harbors harbours
endeavor endeavour
savory savoury
center centre
centers centres
centered centred
theater theatre
theaters theatres
meter metre
meters metres
liter litre
liters litres
kilometer kilometre
kilometers kilometres
centimeter centimetre
centimeters centimetres
millimeter millimetre
millimeters millimetres
fiber fibre
fibers fibres
jewelry jewellery
judgment judgement
mold mould
cozy cosy
yogurt yoghurt
gray grey
mom mum
moms mums
program programme
programs programmes
defense defence
defenses defences
offense offence
license licence
licenses licences
practice practise
practiced practised
practicing practising
catalog catalogue
catalogs catalogues
analog analogue
pajamas pyjamas
mustache moustache
skeptical sceptical
aluminum aluminium
maneuver manoeuvre
donut doughnut
donuts doughnuts
organize organise
organized organised
organizing organising
organization organisation
organizations organisations
organizer organiser
organizers organisers
organizes organises
realize realise
realized realised
realizing realising
recognize recognise
recognized recognised
recognizing recognising
apologize apologise
apologized apologised
apologizing apologising
analyze analyse
analyzed analysed
analyzing analysing
analyzes analyses
emphasize emphasise
summarize summarise
summarized summarised
summarizing summarising
prioritize prioritise
prioritized prioritised
memorize memorise
memorized memorised
visualize visualise
visualized visualised
personalize personalise
personalized personalised
optimize optimise
optimized optimised
optimization optimisation
minimize minimise
minimized minimised
maximize maximise
maximized maximised
categorize categorise
utilize utilise
utilized utilised
`

// degrees lists the comparatives and superlatives of common adjectives,
// each line the adjective (the base) and its degrees, which the stemmer
// leaves apart from it ("older" stems to "older"): "How much older am I
// than my sister?" asks about "I'm 32 years old". Left out: degrees that
// are mostly another word in conversation, "better", "best", "worse",
// "worst" (better is a verb and an adverb, best a fixed phrase's), "later"
// and "latest" ("see you later", "the latest version"), "earlier" ("as I
// said earlier"), "longer" ("no longer"), "further" and "furthest"
// ("further questions"), "elder" and "eldest", "prettier" (a code
// formatter); the ones that are nouns too, "lighter", "cooler",
// "cleaner", "stranger", "dryer", "fresher", "sharper", "finer"; and
// those whose base is mostly another word: "close" (the stem of "closed",
// "closing"), "clear" ("cleared"), "low" ("lower the price", "lower
// case"), "great" ("Great, thanks"), "pretty" ("pretty sure").
const degrees = `
angry angrier angriest
big bigger biggest
brave braver bravest
bright brighter brightest
busy busier busiest
calm calmer calmest
cheap cheaper cheapest
cold colder coldest
crazy crazier craziest
cute cuter cutest
dark darker darkest
dirty dirtier dirtiest
deep deeper deepest
easy easier easiest
far farther farthest
fast faster fastest
fat fatter fattest
friendly friendlier friendliest
funny funnier funniest
happy happier happiest
hard harder hardest
healthy healthier healthiest
heavy heavier heaviest
high higher highest
hot hotter hottest
hungry hungrier hungriest
large larger largest
lazy lazier laziest
lonely lonelier loneliest
loud louder loudest
lucky luckier luckiest
messy messier messiest
near nearer nearest
new newer newest
nice nicer nicest
noisy noisier noisiest
old older oldest
poor poorer poorest
proud prouder proudest
quick quicker quickest
quiet quieter quietest
rare rarer rarest
rich richer richest
risky riskier riskiest
sad sadder saddest
safe safer safest
scary scarier scariest
short shorter shortest
simple simpler simplest
slow slower slowest
small smaller smallest
smart smarter smartest
soft softer softest
spicy spicier spiciest
strict stricter strictest
strong stronger strongest
sweet sweeter sweetest
tall taller tallest
tasty tastier tastiest
thick thicker thickest
thin thinner thinnest
tiny tinier tiniest
tough tougher toughest
ugly uglier ugliest
warm warmer warmest
weak weaker weakest
weird weirder weirdest
wet wetter wettest
wide wider widest
wild wilder wildest
wise wiser wisest
young younger youngest
`

// plurals lists nouns whose plurals the stemmer leaves apart from them
// ("children" stems to "children", "wives" to "wive"), each line the noun
// (the base) and its plural. A plural may take a possessive ("the
// children's school"). Left out: "people" (mostly a word of its own, not
// "persons"), "men" ("man" is mostly "Man, that was close" or "man
// page"), and plurals that are mostly a verb's form in conversation
// ("lives", "leaves", "dies").
const plurals = `
child children
grandchild grandchildren
stepchild stepchildren
woman women
businessman businessmen
gentleman gentlemen
fireman firemen
fisherman fishermen
freshman freshmen
policeman policemen
salesman salesmen
foot feet
tooth teeth
mouse mice
goose geese
ox oxen
wife wives
knife knives
wolf wolves
shelf shelves
half halves
loaf loaves
thief thieves
calf calves
scarf scarves
hoof hooves
cactus cacti
fungus fungi
criterion criteria
phenomenon phenomena
crisis crises
thesis theses
hypothesis hypotheses
index indices
appendix appendices
matrix matrices
vertex vertices
axis axes
`

// A formKind says how a form is read in text (see words).
type formKind uint8

const (
	// word: a verb's form or an adjective's degree, a name when
	// capitalised inside a sentence
	word formKind = iota
	// spelling: a British spelling, in any case but capitals (no name:
	// "I told Mum"), and it may take a possessive ("my mum's")
	spelling
	// plural: as a word, but it may take a possessive ("the children's")
	plural
)

// base maps each form to its base; forms maps each base to its forms;
// kind holds what kind of form each is.
var base, forms, kind = func() (map[string]string, map[string][]string, map[string]formKind) {
	b, f, k := map[string]string{}, map[string][]string{}, map[string]formKind{}
	for _, t := range []struct {
		table string
		kind  formKind
	}{{table, word}, {spellings, spelling}, {degrees, word}, {plurals, plural}} {
		for line := range strings.Lines(t.table) {
			w := strings.Fields(line)
			if len(w) < 2 {
				continue
			}
			for _, form := range w[1:] {
				b[form] = w[0]
				k[form] = t.kind
			}
			f[w[0]] = w[1:]
		}
	}
	return b, f, k
}()

// Sum is the first 16 hex digits of the tables' SHA-256 (and the rules'
// version): what a test pins to hybrid.DocVersion, so that the tables
// cannot change what stores index without the version that makes them
// rebuild their indexes.
func Sum() string {
	sum := sha256.Sum256([]byte(table + spellings + degrees + plurals + rules))
	return hex.EncodeToString(sum[:8])
}

// Base is the base of a form in lower case ("bought" → "buy", "colour"
// → "color"), and "" for any other word.
func Base(word string) string { return base[word] }

// Forms are the forms of a base ("buy" → "bought", "color" → "colour"),
// nil for any other word.
func Forms(word string) []string { return forms[word] }

// Bases are the bases of the forms in text, one for each time a form
// occurs, separated by spaces: "We met and went home" → "meet go".
func Bases(text string) string {
	var out []string
	words(text, func(_, _ int, b string) {
		out = append(out, b)
	})
	return strings.Join(out, " ")
}

// Rewrite is text with each form followed by its base: "the day we
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

// rules names the version of words, joinedLeft, joinedRight and lookup:
// Sum covers them
// with the table, so changing what they read as a form (what documents
// hold) changes the sum that hybrid.DocVersion pins. Bump it with them.
const rules = "5"

// words calls f with the bounds and base of each form in text. A verb's
// form (and an adjective's degree, a noun's plural) is a word of letters
// in lower case, or capitalised at the start of a sentence ("Went to the
// market"); capitalised inside one it is a name ("Drew", "Won", "Sung",
// "Neil Young"), and so is one of names anywhere. A spelling counts in
// lower case or capitalised, anywhere. In capitals any is an acronym
// ("LED", "SAT"). A word joined to a digit, an underscore, a hyphen or
// another word by an apostrophe or a full stop ("won't", "went.com",
// "Drew's", "self-taught") is no form either, but for the possessive of a
// spelling or a plural ("my mum's", "the children's").
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
		if b, k := lookup(text[i:j]); b != "" {
			// a spelling or a plural may take a possessive: bleve indexes
			// "mum" of "my mum's birthday"
			free := !joinedLeft(text, i) && (!joinedRight(text, j) || k != word && possessive(text, j))
			if free && (lower || titled(text[i:j]) && !names[b] && (k == spelling || sentenceStart(text, i))) {
				f(i, j, b)
			}
		}
		i = j
	}
}

// names are the bases of forms that are also names (Drew, Won, Sung,
// Hung, Grey) or abbreviations (Sat): capitalised, one of these is a name
// even at the start of a sentence ("Drew said the museum was closed",
// "Earl Grey").
var names = map[string]bool{"draw": true, "win": true, "sing": true, "hang": true, "sit": true, "gray": true}

// titled reports whether w is a capital and then lower case letters.
func titled(w string) bool {
	_, n := utf8.DecodeRuneInString(w)
	for _, r := range w[n:] {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// sentenceStart reports whether the word at i starts a sentence: at the
// start of text, or after a sentence's end (". ", "! ", "? ", a line
// break, a colon), past spaces and opening quotes or brackets.
func sentenceStart(text string, i int) bool {
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

// lookup is the base of w in any case, and what kind of form w is,
// without making a string: every form is 3 to 16 ASCII letters.
func lookup(w string) (string, formKind) {
	if len(w) < 3 || len(w) > 16 {
		return "", word
	}
	var buf [16]byte
	for i := range len(w) {
		c := w[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	// indexed with the conversion itself: no string is made
	return base[string(buf[:len(w)])], kind[string(buf[:len(w)])]
}

// joinedLeft and joinedRight report whether the letters of a word
// text[i:j] are part of a longer token, as bleve's tokenizer reads one
// (Unicode's word boundaries), by what comes before i or after j: next
// to a digit or an underscore, or joined to a letter by an apostrophe, a
// full stop or a colon ("won't" is not "win't", "went.com" no form); or
// part of a hyphenated word, which bleve splits but which names no event
// ("left-handed", "self-taught", "home-grown").
func joinedLeft(text string, i int) bool {
	if i == 0 {
		return false
	}
	r, n := utf8.DecodeLastRuneInString(text[:i])
	p, _ := utf8.DecodeLastRuneInString(text[:i-n])
	return inWord(r) || midWord(r) && unicode.IsLetter(p)
}

func joinedRight(text string, j int) bool {
	if j == len(text) {
		return false
	}
	r, n := utf8.DecodeRuneInString(text[j:])
	p, _ := utf8.DecodeRuneInString(text[j+n:])
	return inWord(r) || midWord(r) && unicode.IsLetter(p)
}

// possessive reports whether text[j:] starts with "'s" (or "’s") that ends
// its word.
func possessive(text string, j int) bool {
	for _, a := range []string{"'s", "\u2019s"} {
		if rest, ok := strings.CutPrefix(text[j:], a); ok {
			r, _ := utf8.DecodeRuneInString(rest)
			return rest == "" || !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
		}
	}
	return false
}

func inWord(r rune) bool  { return r == '_' || r == '-' || unicode.IsDigit(r) }
func midWord(r rune) bool { return r == '\'' || r == '.' || r == ':' || r == '\u2019' }

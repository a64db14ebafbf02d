package entities

import (
	"bytes"
	"slices"
	"strings"
)

// The extractor's data. Words are lower-case ASCII, looked up lower-cased
// with curly apostrophes straightened; the tables are read-only after
// initialisation.

// Characters.
const (
	// currencies may precede a number: "$20", "€50".
	currencies = "$€£¥₹"

	// sentenceEnds: a word after one of these starts a sentence.
	sentenceEnds = ".!?…:;¿¡。！？"

	// sentenceCarriers open a quotation, bracket or list item, after which
	// a sentence start carries over to the next word; a straight quote
	// opens a title only after a space or one of these.
	sentenceCarriers = "\"'“‘„«「『([-–—*•>"

	// webLeading and webTrailing are stripped from a whitespace-delimited
	// chunk before it is tested as an e-mail, URL, domain or tag.
	webLeading  = `([{<"'“‘«`
	webTrailing = `.,;:!?)]}>"'”’»`

	// emailSymbols may appear, besides letters and digits, before the @.
	emailSymbols = "._%+-"

	// titleTrailing is dropped from the end of a quoted title.
	titleTrailing = ".,;:!?"
)

// quotes pairs each opening quote with its closing one.
var quotes = []struct{ open, close rune }{
	{'"', '"'}, {'\'', '\''}, {'‘', '\''}, {'“', '”'}, {'„', '”'}, {'«', '»'}, {'「', '」'}, {'『', '』'},
}

// urlPrefixes start a URL; "www." only with another dot after it.
var urlPrefixes = []string{"https://", "http://", "ftp://", "www."}

// tlds are the top-level domains that make "nordstrom.com" a domain
// while "Node.js" and "e.g" are not.
var tlds = set("com org net edu gov io co uk us ca de fr au in ai app dev me info biz tv ly gg xyz nl eu ch es it jp se no fi")

// Dates.

var monthNames = [12]string{"january", "february", "march", "april", "may", "june",
	"july", "august", "september", "october", "november", "december"}

// months maps month names and their abbreviations to 1-12.
var months = func() map[string]int {
	m := map[string]int{"sept": 9}
	for i, n := range monthNames {
		m[n] = i + 1
		m[n[:3]] = i + 1
	}
	return m
}()

// weekdays, like a month on its own, are not names.
var weekdays = set("monday tuesday wednesday thursday friday saturday sunday tues weds thurs")

// Numbers.

// numberWords before a unit are written as digits: "three weeks" -> "3 weeks".
var numberWords = map[string]string{
	"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13",
	"fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18",
	"nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60",
	"seventy": "70", "eighty": "80", "ninety": "90", "hundred": "100",
}

// numberWordInitials are the first letters, in either case, of the
// number words: a cheap test before the lookup.
var numberWordInitials = func() string {
	var b []byte
	for w := range numberWords {
		if bytes.IndexByte(b, w[0]) < 0 {
			b = append(b, w[0], w[0]-'a'+'A')
		}
	}
	return string(b)
}()

// units may follow a number: "5 km", "3 weeks", "960 dollars".
var units = set(`
	second seconds sec secs minute minutes min mins hour hours hr hrs h
	day days week weeks wk wks month months year years yr yrs decade decades century centuries
	night nights weekend weekends semester semesters season seasons episode
	km kms kilometer kilometers kilometre kilometres m meter meters metre metres cm mm
	mi mile miles ft feet foot inch inches yard yards yd
	kg kgs kilo kilos kilogram kilograms g gram grams lb lbs pound pounds oz ounce ounces
	ton tons tonne tonnes stone
	l liter liters litre litres ml gallon gallons gal cup cups
	dollar dollars buck bucks euro euros cent cents yen usd eur gbp grand
	percent mph kph kmh calorie calories cal kcal degree degrees
	gb mb tb kb ghz mhz mp hp k bn
	times people person kid child children book page step steps rep reps set sets
	star stars point points`)

// magnitudes scale a number: "1.5 million yen", "$2 billion"; the
// attached ones are kept as written: "10k", "$2bn".
var (
	magnitudes         = set("thousand million billion trillion k bn")
	attachedMagnitudes = set("k bn")
)

// percent after a number is written "%": "40 percent" -> "40%".
var percent = set("percent pct")

// clock after a number makes it a time, which is left out: "5 pm".
var clock = set("am pm a.m p.m")

// ordinals end a day or an ordinal number: "8th", "1st".
var ordinals = set("st nd rd th")

// Names.

// articles do not begin a name: "The Alchemist" is named "alchemist".
var articles = set("the a an")

// connectors join two parts of a name in lower case: "Bank of America",
// "Lord of the Rings", "Vincent van Gogh".
var connectors = set("of the de del della da di du la le van von der den y")

// notNames are never part of a name, though capitalised.
var notNames = set("i i'm i've i'd i'll ok okay mr mrs ms mx dr prof sr jr")

// firstPerson, like stop words, do not count towards a title's case.
var firstPerson = set("i'm i've i'll i'd")

// openerContractions make a capitalised sentence opener a common word:
// "We're", "They've", "I'd".
var openerContractions = set("'re 've 'll 'd 'm")

// verbEndings mark a sentence opener as a verb form whose subject chat
// has dropped ("Painting is fun", "Visited Mohammed"), at a minimum
// length, unless it ends in one of not ("Beijing" is no English verb).
var verbEndings = []struct {
	suffix string
	min    int
	not    []string
}{
	{"ing", 6, []string{"jing", "qing"}},
	{"ed", 7, nil},
}

// titleCues, among the three words before a quote, announce a title even
// in lower case: `a book called "the silent patient"`.
var titleCues = set(`called titled named entitled read reading reread watched watching
	book novel memoir movie film show series song songs album track podcast game play poem
	painting paintings class course documentary episode article blog channel`)

// stopWords are words that, capitalised at the start of a sentence, are
// not names: function words, question words, interjections, and the
// words conversations most often open with.
var stopWords = set(`
	a an the this that these those there here it its me my mine myself we our ours us ourselves
	you your yours yourself he him his she her hers they them their theirs i
	who whom whose what which when where why how whoever whatever whenever wherever however
	is am are was were be been being do does did doing done have has had having
	can could will would shall should may might must need ought
	and but or nor so yet for because since although though if unless until while as than then
	also too just only even still already again ever never always sometimes often usually
	maybe perhaps probably actually really very quite pretty almost
	in on at to from by with about of off over under into onto up down out after before during
	through between among around without within across against along behind beyond near
	not no yes yeah yep yup nope nah ok okay oh ah aw aww ahh hmm hm um uh wow whoa haha hahaha lol lmao
	omg hey hi hello bye goodbye thanks thank thx please sorry congrats congratulations cheers
	welcome great good nice cool awesome amazing wonderful fantastic lovely sweet perfect fun
	sure definitely absolutely totally exactly right true well alright anyway anyways btw plus
	besides speaking indeed glad happy sad excited sounds sound love loved hope wish guess
	let remember imagine tell check keep take make look see guys honestly seriously basically
	literally apparently luckily unfortunately fortunately hopefully finally recently lately
	today tonight tomorrow yesterday now soon later earlier once every each all any some
	many much more most few several both either neither other another such same
	first second third last next lots something anything everything nothing someone anyone
	everyone nobody somebody everybody
	one two three four five six seven eight nine ten
	went got made saw bought took met found felt thought knew told said gave came ran wrote
	kept left lost won began brought caught taught sent spent built tried
	going being having getting doing trying looking thinking feeling working
	looks seems sounds feels means reminds makes takes gets
	like likes want wants know knows think agreed agree yours
	dear note please wait stop listen ask email call text send visit try come
	our let's`)

// words is a set of lower-case words: a list when it is small, which is
// faster to scan than a map is to hash, else a map.
type words struct {
	list []string
	m    map[string]struct{}
}

func set(list string) words {
	f := strings.Fields(list)
	if len(f) <= 12 {
		return words{list: f}
	}
	m := make(map[string]struct{}, len(f))
	for _, w := range f {
		m[w] = struct{}{}
	}
	return words{m: m}
}

func (ws words) has(w string) bool {
	if ws.m != nil {
		_, ok := ws.m[w]
		return ok
	}
	return slices.Contains(ws.list, w)
}

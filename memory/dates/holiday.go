package dates

import (
	"strings"
	"time"
)

// A holiday is the day a name gives in a year: Christmas, Christmas Eve
// and Christmas Day, Boxing Day, New Year's Eve and New Year's Day,
// Halloween, Valentine's Day, St Patrick's Day, the Fourth of July
// (Independence Day), Easter (Sunday), and the United States' Memorial
// Day (the last Monday of May), Labor Day (the first Monday of
// September) and Thanksgiving (the fourth Thursday of November). Each
// counts only with its capitals, and only where a word of time sets it
// ("at Christmas", "over Easter", "before Halloween", "for
// Thanksgiving", "the week of Easter"), or last, this or next comes
// before it, or "week" after it ("Thanksgiving week", weekof.go); "the Christmas
// magic" and "Thanksgiving traditions" name no day, nor does a
// holiday's name inside a longer one ("Christmas Island", "Halloween
// Horror Nights", "The Nightmare Before Christmas").
type holiday struct {
	words []string             // the name, word by word ("New", "Year", "s", "Eve")
	day   func(int) (int, int) // its month and day in a year
	// lower: the name is read in lower case too, as chat types it ("over
	// christmas", "for new year's eve"); a name whose words are also
	// everyday ones ("Labor Day", "New Year") needs its capitals
	lower bool
}

func fixed(m, d int) func(int) (int, int) { return func(int) (int, int) { return m, d } }

// holidayThings are the nouns a holiday's name, typed in lower case,
// describes rather than dates ("a christmas party on 20 December", "easter
// eggs", "thanksgiving dinner").
var holidayThings = map[string]bool{
	"party": true, "parties": true, "dinner": true, "lunch": true, "tree": true, "trees": true,
	"decorations": true, "movie": true, "movies": true, "film": true, "films": true,
	"cookie": true, "cookies": true, "egg": true, "eggs": true, "money": true, "shopping": true,
	"card": true, "cards": true, "gift": true, "gifts": true, "present": true, "presents": true,
	"market": true, "markets": true, "sale": true, "sales": true, "music": true, "song": true,
	"songs": true, "carol": true, "carols": true, "lights": true, "sweater": true, "jumper": true,
	"list": true, "spirit": true, "costume": true, "costumes": true, "candy": true, "pumpkin": true,
	"pumpkins": true, "turkey": true, "special": true, "episode": true, "album": true, "bonus": true,
	"menu": true, "hunt": true, "hunting": true, "bunny": true, "basket": true, "baskets": true,
}

// holidays, longer names of one start first.
var holidays = []holiday{
	{[]string{"Christmas", "Eve"}, fixed(12, 24), true},
	{[]string{"Christmas", "Day"}, fixed(12, 25), true},
	{[]string{"Christmas"}, fixed(12, 25), true},
	{[]string{"New", "Year", "s", "Eve"}, fixed(12, 31), true},
	{[]string{"New", "Year", "s", "Day"}, fixed(1, 1), true},
	{[]string{"New", "Year", "s"}, fixed(1, 1), true}, // "over New Year's"
	{[]string{"New", "Year"}, fixed(1, 1), false},     // "over New Year"; "for the new year" is the year to come
	{[]string{"Boxing", "Day"}, fixed(12, 26), false},
	{[]string{"Halloween"}, fixed(10, 31), true},
	{[]string{"St", "Patrick", "s", "Day"}, fixed(3, 17), false},
	{[]string{"Memorial", "Day"}, memorialDay, false},
	{[]string{"Labor", "Day"}, laborDay, false},
	{[]string{"Fourth", "of", "July"}, fixed(7, 4), false},
	{[]string{"Independence", "Day"}, fixed(7, 4), false},
	{[]string{"Valentine", "s", "Day"}, fixed(2, 14), true},
	{[]string{"Easter", "Sunday"}, easter, true},
	{[]string{"Easter"}, easter, true},
	{[]string{"Thanksgiving"}, thanksgiving, true},
}

// holiday reads a holiday's name at i (see holiday): its day in the year
// written after it ("at Christmas 2019"), or else in the year that its
// sentence's tense or last, this or next gives, as a day without a year
// is read.
func (f *finder) holiday(i int) (Mention, int) {
	h, j := f.holidayAt(i)
	if j == i {
		return Mention{}, i
	}
	week, end := f.holidayWeek(j), j // "Thanksgiving week" (weekof.go)
	if week {
		end++
	}
	// a holiday's week cues itself ("Thanksgiving week was busy", "we're
	// off Christmas week"), but not in a statement of what it is, as a
	// holiday's name is none ("Christmas week is my favourite")
	weekCued := week && f.kw(end) != kwIs && !(f.word(end, "s") && f.apos(end))
	dir, start := 0, i
	switch f.kw(i - 1) {
	case kwLast:
		dir, start = -1, i-1
	case kwNext:
		dir, start = 1, i-1
	case kwThis:
		dir, start = 2, i-1
	case kwEvery:
		return Mention{}, end // "every Christmas week"
	default:
		if !f.holidayCued(i) && !weekCued {
			return Mention{}, j // no day, and no month of its own: "the Fourth of July is my favourite"
		}
	}
	if y, k := f.yearAt(end); y > 0 && dir == 0 { // "at Christmas 2019", "on New Year's Day, 2022", "Thanksgiving week 2024"
		if y < MinYear || y > MaxYear {
			return Mention{}, k
		}
		m, d := h.day(y)
		from, to := f.dayOf(y, m, d)
		mm := f.mention(start, k, Day, false, from, to)
		mm.Year, mm.Month, mm.Day, mm.Holiday = y, m, d, true
		return f.holidaysWeek(mm, week), k
	}
	mm := f.mention(start, end, Day, dir != 0, time.Time{}, time.Time{})
	mm.Holiday, mm.Back = true, dir < 0 // "last Christmas"
	if !f.has {
		return f.holidaysWeek(mm, week), end
	}
	y, ok := f.holidayYear(i, j, h, dir)
	if !ok {
		return Mention{}, end // "every year at Christmas"
	}
	if y >= MinYear && y <= MaxYear {
		m, d := h.day(y)
		mm.From, mm.To = f.dayOf(y, m, d)
		mm.Month, mm.Day = m, d
	}
	return f.holidaysWeek(mm, week), end
}

// holidayAt matches a holiday's name at i: the holiday and the token
// after its name, or j == i.
func (f *finder) holidayAt(i int) (holiday, int) {
	for _, h := range holidays {
		j := i
		for _, w := range h.words {
			if j < len(f.t) && f.t[j].kind == kPunct && (f.s[f.t[j].start:f.t[j].end] == "'" || f.s[f.t[j].start:f.t[j].end] == "’" || f.punct(j, '.') && f.word(j-1, "st")) {
				j++ // "Year's", "Year’s", "St. Patrick's"
			}
			if !f.word(j, w) || ('A' <= w[0] && w[0] <= 'Z' && !f.t[j].upper && !h.lower) { // "Fourth of July": its capitals
				j = -1
				break
			}
			j++
		}
		if j <= i || !f.rightOK(j) || f.name(i, j) {
			continue
		}
		if !f.t[i].upper && j < len(f.t) && f.t[j].kind == kWord && holidayThings[strings.ToLower(f.s[f.t[j].start:f.t[j].end])] {
			continue // in lower case, a thing of the holiday is no day: "christmas movies", "easter eggs"
		}
		if len(h.words) == 2 && h.words[1] == "Year" && f.kw(i-1) == kwThe {
			continue // "New Year" after "the" is the year to come: "excited for the New Year"
		}
		return h, j
	}
	return holiday{}, i
}

// name reports a holiday's name at [i, j) inside a longer name:
// followed by a word with a capital ("Christmas Island", "Halloween
// Horror Nights"), or after a word of time with a capital after another
// ("The Nightmare Before Christmas").
func (f *finder) name(i, j int) bool {
	if j < len(f.t) && f.t[j].kind == kWord && f.t[j].upper && (f.kw(j) == kwNone || f.kw(j) == kwHoliday) && !f.word(j, "i") && f.spaced(j) && !f.t[j].line {
		return true
	}
	return i >= 2 && f.t[i-1].upper && f.t[i-2].kind == kWord && f.t[i-2].upper && !f.t[i-1].line
}

// holidayCued reports a word of time before a holiday's name at i: at,
// on, over, for, before, after, until, till, since, during, from,
// through, by, around ("over Christmas", "by Easter"); or a verb that
// spends it, in the past or as it goes ("we spent Christmas with my
// in-laws", "we're celebrating Thanksgiving"; not "do you celebrate
// Christmas?", a habit).
func (f *finder) holidayCued(i int) bool {
	if f.kw(i-1) == kwThe {
		i-- // "on the Fourth of July"
	}
	switch f.kw(i - 1) {
	case kwAt, kwOn, kwOver, kwCue, kwBefore, kwAfter, kwBy:
		return true
	case kwOf:
		return f.weekBefore(i) < i // "the week of Christmas" (weekof.go)
	}
	for _, w := range [...]string{"for", "spent", "spending", "celebrated", "celebrating"} {
		if f.word(i-1, w) {
			return true // "we spent Christmas with my in-laws"
		}
	}
	// "we'll spend New Year's with friends", "did we celebrate
	// Thanksgiving?"; not "do you celebrate Christmas?"
	return (f.word(i-1, "spend") || f.word(i-1, "celebrate")) && (f.kw(i-2) == kwWill || f.kw(i-2) == kwWas || f.kw(i-3) == kwWas && f.pronoun(i-2))
}

// holidayYear is the year of holiday h named at [i, j): by dir (-1 last,
// 1 next, 2 this, 0 its sentence's tense) the latest up to ref's day, the
// first from it, or ref's year's; the year a sentence names; not ok for
// a habit's ("every year at Christmas").
func (f *finder) holidayYear(i, j int, h holiday, dir int) (int, bool) {
	ref := f.refDay()
	on := func(y int) time.Time { m, d := h.day(y); from, _ := f.dayOf(y, m, d); return from }
	if dir == 0 {
		said, named := f.yearSaid(i, j)
		switch {
		case named && said == 0 || f.habitNear(i, j):
			return 0, false // "every year at Christmas", "during Thanksgiving, we usually…"
		case named:
			return said, true
		case f.ahead(i) || f.ahead(j-1) || f.deadline(i) && !f.behind(i) && !f.pastNear(i, i):
			dir = 1 // the tense read from either end of the name: "what should we do for New Year's Eve?", "on New Year's Eve we're going"
		default:
			dir = -1
		}
	}
	y := f.y
	switch said := f.kw(i - 1); dir {
	case -1: // "last Christmas" said on Christmas Day is the one before
		if on(y).After(ref) || said == kwLast && !on(y).Before(ref) {
			y--
		}
	case 1:
		if on(y).Before(ref) || said == kwNext && !on(y).After(ref) {
			y++
		}
	}
	return y, true
}

// easter is Easter Sunday's month and day in year y (the anonymous
// Gregorian computus).
func easter(y int) (int, int) {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	g := (8*b + 13) / 25
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 19*l) / 433
	month := (h + l - 7*m + 90) / 25
	day := (h + l - 7*m + 33*month + 19) % 32
	return month, day
}

// thanksgiving is the fourth Thursday of November in year y.
func thanksgiving(y int) (int, int) {
	first := int(weekdayOf(y, 11, 1)) // Sunday = 0
	return 11, 1 + (4-first+7)%7 + 21
}

// deadline reports by, until or till before a holiday's name at i: a
// date to meet, ahead ("I want to lose 5 kilos by Christmas"), unless a
// word tells the past ("By Halloween my costume was ready") or of a thing
// done ("We finished the deck by Labor Day").
func (f *finder) deadline(i int) bool {
	return f.word(i-1, "by") || f.word(i-1, "until") || f.word(i-1, "till")
}

// habitNear reports a word of frequency (habit) in the sentence of a
// holiday's name at [i, j), within six tokens of it: "at Christmas we
// always go skiing" names every Christmas, no day.
func (f *finder) habitNear(i, j int) bool {
	lo, hi := f.sentenceOf(i, j-1)
	for k := lo; k <= hi; k++ {
		if f.habit(k) {
			return true
		}
	}
	return false
}

// memorialDay is the last Monday of May in year y (the United States').
func memorialDay(y int) (int, int) {
	last := int(weekdayOf(y, 5, 31)) // Sunday = 0
	return 5, 31 - (last+6)%7
}

// laborDay is the first Monday of September in year y (the United
// States').
func laborDay(y int) (int, int) {
	first := int(weekdayOf(y, 9, 1)) // Sunday = 0
	return 9, 1 + (8-first)%7
}

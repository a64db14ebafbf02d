package dates

import "strings"

// How a date's sentence says whether it is ahead or behind: the tense
// words near it (ahead, tense), the plans said without one (planAt,
// trip, wish), and the year a sentence names (yearSaid).

// ahead reports a bare weekday (or a month or day without a year) at i
// that its clause puts in the future:
// the nearest tense word within six words on either side, in the same
// sentence, is a future one ("we will deploy on Friday", "I'm going
// there on Sunday", "the deploy is on Friday") rather than a past one
// ("on Friday we went", "Monday was fun"). Without either it is behind:
// memories are mostly told in the past tense.
func (f *finder) ahead(i int) bool {
	ahead, _ := f.tenseOf(i)
	return ahead
}

// behind reports a date at i that a past word of its sentence puts
// behind ("we went skiing on Monday 4 January"): not only untold.
func (f *finder) behind(i int) bool {
	ahead, told := f.tenseOf(i)
	return told && !ahead
}

// tenseOf is ahead's reading of the sentence of a date at i, and whether
// a word told it (told) or it is the default, behind.
func (f *finder) tenseOf(i int) (ahead, told bool) {
	ahead, told, _ = f.tenseWhy(i)
	return ahead, told
}

// tenseWhy is tenseOf, and whether the words before the date alone set it
// ahead (byCue: a deadline's or a plan's word, setAhead, or a move,
// movedTo), which a deadline just passed overrules (dayYear, monthYear).
func (f *finder) tenseWhy(i int) (ahead, told, byCue bool) {
	start := f.partStart(i)
	if since, _ := f.sinceFrom(start); since {
		return false, true, false
	}
	if f.movedTo(start) && !f.pastNear(i, start) {
		return true, true, true // "The meeting was moved to 12/14": the new day is ahead
	}
	if ahead, told := f.toldTense(i, start); told {
		return ahead, true, false
	}
	if f.setAhead(start) && !f.pastNear(i, start) {
		return true, true, true // "Deadline: Dec 14", "due 12/15", "ETA Friday", "OOO 12/21 - 1/4"
	}
	return false, false, false
}

// toldTense is what the words of the sentence of a date at i, whose part
// or week starts at start, tell of its tense: the words before counted
// from the part's or week's first word, "the" in "I'll be on leave the
// second half of December"; the words after from the date, "The week of
// May 22 we're going to Rome".
func (f *finder) toldTense(i, start int) (ahead, told bool) {
	_, from := f.sinceFrom(start)
	// the words after counted as after a date in words: "2/18" is three
	// tokens where "Feb 18" is two
	end := i
	for k := i; f.num(k) && f.glued(k+2) && f.punct(k+1, '/') && f.num(k+2); k += 2 {
		end++
	}
	lo, hi := f.sentenceOf(start, end)
	for d := 1; d <= 6; d++ {
		for k, j := range [2]int{start - d, end + d} {
			if j < lo || j > hi {
				continue
			}
			at := start
			if k == 1 {
				at = end
			}
			if ahead, told := f.tense(at, j, lo, from); told {
				return ahead, true
			}
		}
	}
	return false, false
}

// pastNear reports a word near a date at i (its part or week from start)
// that tells of a thing done, which the tense words do not: in its
// sentence, a verb's past form ("Shipped the feature due Sept 30",
// "Effective Jan 1, the fee rose to $20", "Took PTO Oct 3"); on its line,
// a status's word, done, overdue, closed, "[x]" ("[DONE] … due Oct 20",
// "Status: done. Due Oct 30."). The auxiliary of a move is none ("The
// meeting was moved to 12/14").
func (f *finder) pastNear(i, start int) bool {
	// its line, twelve tokens either way: a status line's other sentences
	// too ("Status: done. Due Oct 30.", "- [x] Renew domain, due: Oct 2")
	lo, hi := start, i
	for lo > 0 && start-lo < 12 && !f.t[lo].line {
		lo--
	}
	for hi+1 < len(f.t) && hi-i < 12 && !f.t[hi+1].line {
		hi++
	}
	// a verb's past form counts in the date's sentence (to a full stop:
	// "Missed the deadline: Dec 14"), a status word anywhere near: "Due Oct
	// 30." after "Status: done.", but not "Deadline: 12/14 for the Q4
	// report. I bought the monitor on 11/13."
	first, last := start, i
	for first > lo && !f.fullStop(first-1) {
		first--
	}
	for last < hi && !f.fullStop(last+1) {
		last++
	}
	for j := lo; j <= hi; j++ {
		if j >= start && j <= i || f.t[j].kind != kWord || j >= start-4 && j < start && f.movedTo(start) && f.moveAux(j) {
			continue
		}
		if f.word(j, "done") && (f.word(j-2, "have") || f.word(j-2, "get") || f.word(j-1, "be")) {
			continue // "Let's get it done by Easter", "Can you have this done by Friday?"
		}
		w := strings.ToLower(f.s[f.t[j].start:f.t[j].end])
		if statusDone[w] || f.word(j, "x") && f.punct(j-1, '[') && f.punct(j+1, ']') {
			return true
		}
		if j >= first && j <= last && (f.kw(j) == kwWas || pastForm(w)) {
			return true
		}
	}
	return false
}

// statusDone are a status line's words of a thing done, which count
// across its sentences ("Status: done. Due Oct 30.", "Closed. Deadline:
// Aug 15.", "Due: Oct 2. Resolved: Oct 5.").
var statusDone = map[string]bool{"done": true, "overdue": true, "closed": true, "resolved": true, "completed": true,
	"cancelled": true, "canceled": true}

// fullStop reports a mark at j that ends a sentence: . ! ?
func (f *finder) fullStop(j int) bool {
	if t := f.t[j]; t.kind == kPunct {
		c := f.s[t.start]
		return c == '.' || c == '!' || c == '?'
	}
	return false
}

// moveAux reports the auxiliary of a move at j: "was moved to", "got
// pushed to", "has been postponed to".
func (f *finder) moveAux(j int) bool {
	for _, w := range [...]string{"was", "were", "got", "been", "has", "had", "is", "be"} {
		if f.word(j, w) {
			return true
		}
	}
	return false
}

// pastForm reports a verb's past form: one in -ed (not "need", "speed",
// "indeed" and other words that end so) or a common irregular one, and
// done, overdue, late ("a week late").
func pastForm(w string) bool {
	if len(w) > 4 && strings.HasSuffix(w, "ed") && !notPast[w] {
		return true
	}
	return irregularPast[w]
}

var notPast = map[string]bool{"need": true, "speed": true, "indeed": true, "exceed": true, "proceed": true,
	"succeed": true, "breed": true, "bleed": true, "hundred": true, "kindred": true, "sacred": true,
	"naked": true, "wicked": true, "rugged": true, "ragged": true, "beloved": true, "embed": true,
	"planned": true, "scheduled": true, "expected": true, "booked": true, "postponed": true, "delayed": true,
	"moved": true, "pushed": true, "rescheduled": true, "bumped": true, "needed": true, "required": true}

var irregularPast = map[string]bool{"took": true, "ran": true, "rose": true, "fell": true, "went": true, "came": true,
	"got": true, "made": true, "paid": true, "sent": true, "left": true, "won": true, "lost": true, "sold": true,
	"bought": true, "brought": true, "caught": true, "taught": true, "thought": true, "felt": true, "kept": true,
	"met": true, "said": true, "told": true, "gave": true, "saw": true, "began": true, "broke": true, "chose": true,
	"drove": true, "ate": true, "flew": true, "grew": true, "knew": true, "rode": true, "spoke": true, "stood": true,
	"threw": true, "wore": true, "wrote": true, "done": true, "overdue": true, "late": true, "ago": true, "slept": true,
	"spent": true, "built": true, "heard": true, "found": true, "held": true, "led": true, "shipped": true,
	"blew": true, "forgot": true, "understood": true, "did": true, "had": true, "closed": true}

// setAhead reports words right before a date at i that set it ahead
// where no word of the sentence tells the tense: due, ETA, effective,
// starting, OOO, PTO, "no later than", "scheduled for", "deadline:", "due
// date:" ("The report was due 4/30" is told, and stays behind).
func (f *finder) setAhead(i int) bool {
	j := i - 1
	if (f.word(j, "on") || f.word(j, "by")) && f.word(j-1, "due") {
		j-- // "Report due by Friday", "due on Dec 14"
	}
	if f.punct(j, ':') {
		return f.word(j-1, "deadline") || f.word(j-1, "due") || f.word(j-1, "date") && f.word(j-2, "due") || f.word(j-1, "eta")
	}
	for _, w := range [...]string{"due", "deadline", "eta", "effective", "starting", "ooo", "pto"} {
		if f.word(j, w) {
			return true
		}
	}
	return f.word(j, "than") && f.word(j-1, "later") ||
		f.word(j, "for") && (f.word(j-1, "scheduled") || f.word(j-1, "planned") || f.word(j-1, "booked") || f.word(j-1, "set"))
}

// movedTo reports a date at i that something is moved to: "moved to",
// "pushed to", "postponed to", "rescheduled to"; the day it is moved to is
// ahead, whatever the tense of the moving.
func (f *finder) movedTo(i int) bool {
	if f.kw(i-1) != kwTo || f.possessive(i) {
		return false // "I pushed to Friday's branch"
	}
	for _, w := range [...]string{"moved", "pushed", "postponed", "rescheduled", "delayed", "bumped", "push", "move", "postpone", "reschedule"} {
		if f.word(i-2, w) {
			return true
		}
	}
	return false
}

// sinceFrom reports "since" or "from" as the word before i (within three
// tokens, past a period word, "the" or a dash). "since Monday" looks back
// whatever the tense ("I'm feeling better since Monday"); "from Saturday"
// mostly too ("I'm uploading the pictures from Saturday"), unless a future
// word says otherwise.
func (f *finder) sinceFrom(i int) (since, from bool) {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if f.kw(j) == kwPeriod || f.kw(j) == kwThe || f.punct(j, '-') {
			continue
		}
		return f.word(j, "since"), f.word(j, "from")
	}
	return false, false
}

// sentence is the sentence around i, [lo, hi]: at most six tokens on
// either side, with no stop and no line break in between.
func (f *finder) sentence(i int) (lo, hi int) {
	lo, hi = i, i
	for lo > 0 && i-lo < 6 && !f.t[lo].line && !f.stop(lo-1) {
		lo--
	}
	for hi+1 < len(f.t) && hi-i < 6 && !f.t[hi+1].line && !f.stop(hi+1) {
		hi++
	}
	return lo, hi
}

// sentenceOf is the words of a date's sentence from token a to token b (a
// part's first word to its period's, or a name's first to its last): the
// sentence of a from its start, that of b to its end.
func (f *finder) sentenceOf(a, b int) (lo, hi int) {
	lo, _ = f.sentence(a)
	_, hi = f.sentence(b)
	return lo, hi
}

// stop reports punctuation that ends a sentence or clause at j: . ! ? ; :
func (f *finder) stop(j int) bool {
	if t := f.t[j]; t.kind == kPunct {
		c := f.s[t.start]
		return c == '.' || c == '!' || c == '?' || c == ';' || c == ':'
	}
	return false
}

// tense reads the word at j, in the sentence of i from lo, for ahead:
// told when it says whether the date at i is ahead (a future word) or
// not (a past one).
func (f *finder) tense(i, j, lo int, from bool) (ahead, told bool) {
	if f.absent(i, j, lo, from) {
		return true, true // "I'm off work from 2 to 6 November", "OOO until Jan 5" (absent.go)
	}
	switch f.t[j].kw {
	case kwWill:
		return true, true
	case kwTomorrow, kwNext:
		// "next month, on 12 August", "tomorrow, and on June 2",
		// "next time, maybe in June": the sentence looks ahead
		// ("the next day" need not; a list "on Sunday, next
		// Monday" names two days)
		if j < i && (f.t[j].kw == kwTomorrow || f.kw(j-1) != kwThe && (f.unit(j+1) || f.word(j+1, "time"))) {
			return true, true
		}
	case kwIs:
		// "is on Friday", "are on Monday", "is in March", "is in early
		// March": a date set ahead; "is due on 3 March" too
		if p := f.periodWordAt(i); j == p-2 && (f.t[p-1].kw == kwOn || f.t[p-1].kw == kwIn) || f.due(i, j) {
			return true, true
		}
		// "the deadline is Friday", "my birthday is 14 August";
		// not "it is Friday", "today is Friday" (today's name)
		if j == i-1 && !f.word(j-1, "it") && !f.word(j-1, "today") && !f.word(j-1, "that") && !f.word(j-1, "this") {
			return true, true
		}
		// a weekday before it: "Friday is the big day"; not "Friday is
		// when I lost my keys", "Monday is the day I broke my leg"
		if _, day := f.kw(i).weekday(); day && j == i+1 && !f.word(j+1, "when") && !f.word(j+1, "where") && !(f.kw(j+1) == kwThe && f.word(j+2, "day")) {
			return true, true
		}
	case kwWas:
		return false, true
	}
	// "the party's on Dec 19th", "it's on 2 March", "it's due by Friday";
	// not "it's on Friday that we met"
	if f.word(j, "s") && f.apos(j) && (j == i-2 && (f.t[i-1].kw == kwOn || f.t[i-1].kw == kwIn) || f.due(i, j)) && !f.word(i+1, "that") && !f.word(i+2, "that") {
		return true, true
	}
	// "see you Monday!", with no word of time before the day
	if j == i-2 && f.word(j, "see") && f.word(j+1, "you") && (j == lo || f.kw(j-1) == kwWill) {
		return true, true
	}
	if j < i && !from && f.progressive(j) && !f.embedded(j, i) {
		return true, true
	}
	// a timetable told after the date, its subject right after it: "After
	// Thanksgiving we ship the app", "on 3 June I start a new job"; not
	// after a weekday, where the present tells stories and habits as
	// often ("On Friday I come home and my laptop is gone", "On Monday
	// they open at 9")
	if j > i && f.pronoun(j-1) && f.subjectAfter(i, j-1) && f.trip(j) && f.setAt(i) && !f.usual(i) && !f.weekdayAt(i) {
		return true, true
	}
	if j < i && f.planAt(i, j, lo, from) {
		return true, true
	}
	return false, false
}

// be reports a form of be in the present at j (is, are, 're, am, 'm),
// and whether its subject is a pronoun ("we're", "I'm"; not "the photos
// are").
func (f *finder) be(j int) (present, pronoun bool) {
	if f.word(j, "am") || f.word(j, "m") && f.apos(j) {
		return true, true
	}
	if f.t[j].kw != kwIs {
		return false, false
	}
	return true, f.pronoun(j-1) || f.apos(j) && f.pronoun(j-2)
}

// subjectAfter reports the pronoun at p right after the date that starts
// at i: only the date's own tokens (numbers, keywords: "3 June", "Friday
// the 4th") and a comma between them; not "after Christmas, then we
// ship", "after Easter and we leave".
func (f *finder) subjectAfter(i, p int) bool {
	if p > i+5 {
		return false
	}
	for k := i + 1; k < p; k++ {
		if f.t[k].line || f.stop(k) || !(f.punct(k, ',') || f.t[k].kind == kNum || f.kw(k) != kwNone && f.kw(k) != kwClause) {
			return false
		}
	}
	return true
}

// due reports "due" between a form of be at j and a date at i, with on,
// in or by between them or nothing: "is due on 3 March", "is due by 31
// January", "is due 1 December".
func (f *finder) due(i, j int) bool {
	i = f.periodWordAt(i) // "is due in late March"
	p := f.kw(i - 1)
	return j == i-3 && f.word(j+1, "due") && (p == kwOn || p == kwIn || p == kwBy) || j == i-2 && f.word(i-1, "due")
}

// unit reports a unit of time or a named day, month or season at i, as
// after "next".
func (f *finder) unit(i int) bool {
	switch k := f.kw(i); k {
	case kwWeek, kwWeekend, kwMonth, kwYear, kwSeason:
		return true
	default:
		_, day := k.weekday()
		return day || k.month() != 0
	}
}

// progressive reports the present progressive at j, "am", "'m", "is",
// "'s", "are" or "'re" before a verb in -ing ("I'm flying there on 2 August",
// "she is leaving in June"): a plan, so ahead when it comes before the
// date (after it, it is mostly another clause: "I ordered it on May 2,
// and I'm looking for..."). Not after it, that or this, whose -ing word is
// mostly an adjective ("it is amazing in June").
func (f *finder) progressive(j int) bool {
	subject, clitic := j-1, (f.word(j, "m") || f.word(j, "s")) && f.apos(j)
	if clitic && f.t[j-1].kind == kPunct {
		subject-- // "I'm", "the plumber's": the word before the apostrophe
	}
	be := f.kw(j) == kwIs || f.word(j, "am") || clitic
	if !be || f.word(subject, "it") || f.word(subject, "that") || f.word(subject, "this") || f.word(subject, "what") {
		return false
	}
	if f.word(j, "s") && (f.ingNoun(j+1) || f.prep(subject-1) || f.event(subject-1) && f.prep(subject-2)) {
		return false // a possessive: "we went to Tom's wedding on Saturday"
	}
	return f.ing(j + 1)
}

// ingNoun reports a noun in -ing at n that follows a possessive more
// often than "'s" as "is" does it ("my sister's wedding", "the
// company's meeting").
func (f *finder) ingNoun(n int) bool {
	for _, w := range [...]string{"wedding", "meeting", "painting", "building", "housewarming", "christening",
		"reading", "screening", "hearing", "recording", "gathering", "opening", "briefing", "tasting", "viewing",
		"outing", "fitting", "booking", "clothing", "ceiling", "drawing", "funding", "setting"} {
		if f.word(n, w) {
			return true
		}
	}
	return false
}

// prep reports a preposition at n, as before a possessive ("to Tom's
// wedding", "at my sister's").
func (f *finder) prep(n int) bool {
	switch f.kw(n) {
	case kwTo, kwAt, kwCue, kwOf, kwBefore, kwAfter, kwIn, kwOn, kwBy:
		return true
	}
	return f.word(n, "for") || f.word(n, "about") || f.word(n, "with")
}

// embedded reports a wh-word between j and a date at i: the date is in
// a clause of its own whose tense j does not give ("remind me what I ate
// on Monday", "everyone's talking about what happened on Friday").
func (f *finder) embedded(j, i int) bool {
	for k := j + 1; k < i; k++ {
		if f.questionWord(k) {
			return true
		}
	}
	return false
}

// pastBefore reports a past or negated past auxiliary in the five words
// before the verb at j, in its clause: "did the exams start", "why didn't
// you come", "where'd you go" (do-support: the verb is no present).
func (f *finder) pastBefore(j int) bool {
	for k := j - 1; k >= 0 && k >= j-5 && !f.stop(k) && !f.punct(k, ','); k-- {
		if f.kw(k) == kwWas || f.word(k, "didn") || f.word(k, "wasn") || f.word(k, "weren") || f.word(k, "hadn") {
			return true
		}
	}
	return f.word(j-2, "d") && f.glued(j-2) && f.pronoun(j-1)
}

// planAt reports a word at j, before a date at i that a preposition of
// time sets (setAt), that says the date is a plan (lo is where its
// sentence's window starts; from, whether "from" comes before the date):
//   - what is to be done: "I should call her on Monday", "I need to finish
//     it by Friday", "let's meet on Thursday"; not "should have" or
//     "should've" (they look back), "need polishing", "let them know",
//     and never a modal after the date, mostly another clause's ("I
//     applied on 25 January, so you should receive it soon");
//   - an event one has, just before its date: "I have a concert on 3
//     June", "do I have any events on Saturday?"; not "I have been",
//     "didn't have a concert", "might have", "did you have a good time on
//     Saturday?", "I have a photo of us on Friday" (the event further
//     off), nor "from Saturday";
//   - the progressive asked as a question: "what am I doing on Friday?";
//   - a question that begins "can we" or "can I": "Can we meet on
//     Thursday?";
//   - a journey in the simple present, a timetable's tense: "we fly to
//     Tokyo on 14 January", "I leave on Friday", "my train leaves at
//     noon on 3 May" (trip); not "did you fly to Tokyo on 14 January?",
//     "we flew", "I want to fly", "the leaves in October".
//
// None counts for a date no preposition of time sets ("I need to tell you
// about Friday", "what are you thinking about Friday?"), nor across a
// wh-word, which opens a clause of its own ("remind me what I ate on
// Monday"); a journey or a wish not across a comma either ("as you might
// expect, on Monday the server crashed"). "There's" and "there is" need
// their event close to the date and not "of" something ("there's a photo
// of us on Friday"); "to see you" needs a word that looks forward before
// it ("can't wait to see you"; not "it was great to see you on Friday").
func (f *finder) planAt(i, j, lo int, from bool) bool {
	if !f.setAt(i) || f.embedded(j, i) {
		return false
	}
	switch {
	case f.word(j, "should"):
		return !f.word(j+1, "have") && !f.clitic(j, "ve")
	case f.word(j, "need") || f.word(j, "needs"):
		return f.kw(j+1) == kwTo
	case f.word(j, "let"):
		return f.clitic(j, "s")
	case from:
		// "the conference runs from 3 to 7 May"; not "I'm uploading the
		// pictures from 3 to 7 May"
		return f.inRange && f.trip(j)
	case f.word(j, "have") || f.word(j, "has"):
		return j >= i-5 && f.pronoun(j-1) && f.kw(j-2) != kwWas && f.event(j+1)
	case f.kw(j) == kwIs || f.word(j, "am"):
		return f.pronoun(j+1) && f.ing(j+2)
	case f.word(j, "can"):
		return j == lo && (f.word(j+1, "we") || f.word(j+1, "i"))
	case f.word(j, "got"):
		return j >= i-5 && (f.word(j-1, "ve") || f.word(j-1, "have")) && f.event(j+1)
	case f.word(j, "there"):
		return f.kw(j+1) == kwIs && f.eventNear(j+2, i)
	case f.word(j, "s"): // "there's a party on Friday"
		return (f.word(j-1, "there") || f.apos(j) && f.word(j-2, "there")) && f.eventNear(j+1, i)
	case f.word(j, "see"):
		return f.word(j+1, "you") && (j == lo || f.kw(j-1) == kwWill || f.kw(j-1) == kwTo && f.longFor(j-2))
	case f.word(j, "scheduled") || f.word(j, "planned") || f.word(j, "slated"):
		// "the postmortem is scheduled for Wednesday", "planned for early
		// February"; not "I planned it on Monday"
		return f.word(j+1, "for") && f.periodWordAt(i) == j+2
	}
	for k := j + 1; k < i; k++ {
		if f.punct(k, ',') {
			return false // another clause: "as you might expect, on Monday the server crashed"
		}
	}
	return f.trip(j) && !f.usual(i) || f.wish(i, j)
}

// usual reports a word of a habit in the sentence of the date at i:
// "normally we ship on Tuesday", "every week we ship Tuesday", "we deploy
// on Friday as usual", "we ship Tuesday most weeks".
func (f *finder) usual(i int) bool { return f.usualIn(i, i) }

// usualIn is usual for the words of a date from token at to i (a part's
// first word to its period's: "we always get paid at the end of the
// month").
func (f *finder) usualIn(at, i int) bool {
	lo, hi := f.sentenceOf(at, i)
	for k := lo; k <= hi; k++ {
		switch {
		case f.habit(k), f.kw(k) == kwEvery, f.word(k, "each"),
			f.word(k, "as") && f.word(k+1, "usual"),
			f.word(k, "most") && (f.unit(k+1) || f.word(k+1, "weeks") || f.word(k+1, "days") || f.word(k+1, "months")):
			return true
		}
	}
	return false
}

// wish reports a word at j, before a date at i, that asks for or expects
// what is to come: "won't" ("I won't be in on Monday"; not "we won on
// Monday"), "might" (not "might have", "you might remember the meeting
// on Friday"), "hope to" or "hope you can" (not "I hope you enjoyed the
// party on Saturday"), "remind me to", "remind me about", "remind me on
// Friday", "would like" or "'d like" (not "I'd like to thank everyone
// for Saturday"), "book" with an object ("book a table", "book it"; not
// "a good book on Friday", "book club", "did you book it"), and "free"
// after a form of be ("are you free on Tuesday?"; not "I was free").
func (f *finder) wish(i, j int) bool {
	switch {
	case f.word(j, "won"):
		return f.clitic(j, "t")
	case f.word(j, "might"):
		for _, w := range [...]string{"have", "know", "remember", "recall", "recognise", "recognize", "notice"} {
			if f.word(j+1, w) {
				return false // "you might remember the meeting on Friday"
			}
		}
		return !f.clitic(j, "ve")
	case f.word(j, "hope"): // "I hope to see you", "I hope you can come"; not "I hope you enjoyed the party on Saturday"
		return f.word(j+1, "to") || f.pronoun(j+1) && (f.word(j+2, "can") || f.word(j+2, "could"))
	case f.word(j, "remind"): // "remind me to call her on Monday", "remind me about", "remind me on Friday"
		return !f.event(j-1) && (f.word(j+2, "to") || f.word(j+2, "about") || j+2 >= i-1)
	case f.word(j, "like"): // not "I'd like to thank everyone for Saturday"
		return (f.word(j-1, "would") || f.word(j-1, "d") && f.glued(j-1)) && !f.word(j+2, "thank")
	case f.word(j, "book"): // "book a table", "book it"; not "a good book on Friday", "book club"
		return !f.event(j-1) && !f.pastBefore(j) && (f.event(j+1) || f.plural(j+1) ||
			f.word(j+1, "it") || f.word(j+1, "us") || f.word(j+1, "me") || f.word(j+1, "them"))
	case f.word(j, "off"): // "we're off to France on the 1st"
		return f.kw(j-1) == kwIs || f.word(j-1, "am") || f.word(j-1, "m") || f.word(j-1, "re") || f.word(j-1, "s") && f.glued(j-1)
	case f.word(j, "free"):
		return f.kw(j-2) == kwIs || f.word(j-2, "am") || f.word(j-1, "m") || f.word(j-1, "re")
	}
	return false
}

// eventNear reports an event at a (see event) that a date at i sets:
// close to it, and not of something else ("there's a photo of us on
// Friday" is no event on Friday).
func (f *finder) eventNear(a, i int) bool {
	if !f.event(a) || a < i-5 {
		return false
	}
	for k := a + 1; k < i; k++ {
		if f.kw(k) == kwOf {
			return false
		}
	}
	return true
}

// longFor reports a word at n before "to see you" that looks forward:
// "can't wait to", "hope to", "looking forward to", "want to", "love to"
// (not "it was great to", "I went to").
func (f *finder) longFor(n int) bool {
	for _, w := range [...]string{"wait", "hope", "forward", "want", "wants", "like", "love", "able", "plan", "planning", "expect"} {
		if f.word(n, w) {
			return true
		}
	}
	return false
}

// event reports an article or determiner at j, as an event one has
// begins ("a concert", "my appointment", "the party").
func (f *finder) event(j int) bool {
	k := f.kw(j)
	return k == kwA || k == kwDet || k == kwThe
}

// plural reports a word at j that reads as a plural noun, a subject
// whose verb in the present has no -s ("the sales start on Monday",
// "exams start on 4 January"): four letters or more ending in s, not in
// ss, us or is, and no word this package reads otherwise.
func (f *finder) plural(j int) bool {
	if j < 0 || f.t[j].kind != kWord || f.kw(j) != kwNone {
		return false
	}
	w := strings.ToLower(f.s[f.t[j].start:f.t[j].end])
	return len(w) >= 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") && !f.habit(j)
}

// habit reports a word of frequency at j ("we always go to the beach in
// August", "the shops usually close on Sunday"): what is done again and
// again is no plan of a date.
func (f *finder) habit(j int) bool {
	for _, w := range [...]string{"always", "usually", "often", "never", "sometimes", "normally", "generally", "typically", "regularly"} {
		if f.word(j, w) {
			return true
		}
	}
	return false
}

// tripVerbs are verbs of a journey, whose simple present says a plan
// ("we fly on 14 January"), each with its form after he, she or a noun.
var tripVerbs = map[string]string{
	"fly": "flies", "leave": "leaves", "depart": "departs", "travel": "travels",
	"return": "returns", "go": "goes", "head": "heads", "move": "moves",
	"drive": "drives", "sail": "sails", "arrive": "arrives", "land": "lands",
	"come": "comes",
	// and of a schedule: "the sales start on Monday", "the shop opens on Sunday"
	"start": "starts", "begin": "begins", "end": "ends", "open": "opens", "close": "closes",
	"expire": "expires", "renew": "renews",
	"run": "runs", "visit": "visits", // "the conference runs from 3 to 7 May", "my brother visits on Friday"
	// and of a team's work: "we ship on Friday", "the release goes out
	// after Thanksgiving", "the order ships on Monday"
	"ship": "ships", "launch": "launches", "release": "releases", "deploy": "deploys",
	"migrate": "migrates", "freeze": "freezes", "resume": "resumes",
}

// tripThird is the forms of tripVerbs after he, she or a noun.
var tripThird = func() map[string]bool {
	m := make(map[string]bool, len(tripVerbs))
	for _, third := range tripVerbs {
		m[third] = true
	}
	return m
}()

// trip reports a verb of a journey in the simple present at j: its base
// form after I, we, you or they ("we fly"), its -s form after a word
// that is no article or determiner ("she flies", "my flight leaves"; an
// -s form that is as often a plural noun only after a name or a carrier:
// not "the autumn leaves", "my tax returns"; not "as the story goes",
// "time flies"), and neither in a question or a negation of the past
// (pastBefore: "did you fly", "where did the kids go", "why didn't you
// come", "where'd you go").
func (f *finder) trip(j int) bool {
	if j < 1 || f.t[j].kind != kWord || f.pastBefore(j) || f.habit(j-1) {
		return false
	}
	w := strings.ToLower(f.s[f.t[j].start:f.t[j].end])
	if _, base := tripVerbs[w]; base {
		return f.pronoun(j-1) && !f.word(j-1, "he") && !f.word(j-1, "she") || f.plural(j-1)
	}
	switch {
	case !tripThird[w]:
		return false
	case f.word(j-1, "he") || f.word(j-1, "she"):
		return true
	case f.word(j-1, "story") || f.word(j-1, "saying") || f.word(j-1, "time"):
		return false // "as the story goes", "time flies"
	}
	k := f.kw(j - 1)
	if nounForms[w] { // "the autumn leaves", "my tax returns": only after a name or a carrier
		return (k == kwNone || k == kwHoliday) && f.t[j-1].upper || f.carrier(j-1)
	}
	return f.t[j-1].kind == kWord && k != kwThe && k != kwDet && k != kwA && !f.pronoun(j-1)
}

// nounForms are -s forms of tripVerbs that are as often plural nouns:
// "autumn leaves", "tax returns", "dance moves", "hard drives", "fruit
// flies".
var nounForms = map[string]bool{"leaves": true, "returns": true, "moves": true, "drives": true,
	"heads": true, "lands": true, "flies": true, "sails": true, "ships": true, "releases": true,
	"launches": true, "deploys": true, "resumes": true}

// carrier reports what a timetable names at n, or someone close who
// travels, or what a team ships: "my flight leaves", "the ferry sails",
// "my son returns", "the release ships".
func (f *finder) carrier(n int) bool {
	for _, w := range [...]string{"flight", "train", "plane", "bus", "coach", "ferry", "ship", "boat", "cruise", "shuttle", "tram",
		"mum", "mom", "dad", "son", "daughter", "wife", "husband", "brother", "sister", "partner", "friend", "boss", "family",
		"order", "package", "parcel", "release", "build", "update", "patch", "version", "product", "feature", "app"} {
		if f.word(n, w) {
			return true
		}
	}
	return false
}

// apos reports an apostrophe, ' or ’, glued before the word at j ("it's",
// "mum’s"; not "U.S").
func (f *finder) apos(j int) bool {
	if j < 1 || !f.glued(j) || f.t[j-1].kind != kPunct {
		return false
	}
	p := f.s[f.t[j-1].start:f.t[j-1].end]
	return p == "'" || p == "’"
}

// clitic reports a contraction of the word at j with c: "let's", "let’s",
// "should've" (the apostrophe a token of its own, glued on both sides), or
// the two words apart ("let s").
func (f *finder) clitic(j int, c string) bool {
	return f.word(j+1, c) || f.glued(j+1) && f.word(j+2, c) && f.glued(j+2)
}

// setAt reports a date at i set by a preposition of time before it (on,
// by, before, after, until, till, in, for, at, and a range's from and
// between; "the" between them allowed; or "the week of" or "before" or
// "after", weekof.go; or a timetable's verb right before it, trip): an
// event's time, as in "let's meet on Thursday", where "let's talk about
// Thursday" is none.
func (f *finder) setAt(i int) bool {
	if f.weekPhraseAt(i) {
		// "What are we doing the week before Christmas?" (weekof.go); not
		// "I need to tell you about the week before Christmas"
		return !f.word(i-1, "about") && f.kw(i-1) != kwOf
	}
	p := f.periodWordAt(i) - 1 // "by late March"
	if f.kw(p) == kwThe {
		p--
	}
	for _, w := range [...]string{"on", "by", "before", "until", "till", "in", "for", "at"} {
		if f.word(p, w) {
			return true
		}
	}
	if f.possessive(i) {
		return false // "after Monday's deploy", "we deploy Friday's build": the event's day
	}
	// "after" too ("the release goes out after Thanksgiving"), and a
	// timetable's verb right before it: "my flight leaves Friday", "we
	// ship this Tuesday", "the release goes out Tuesday"
	if f.word(p, "after") || f.trip(p) || f.particle(p) && f.trip(p-1) || f.proposed(p, i) {
		return true
	}
	return f.inRange && (f.word(p, "from") || f.word(p, "between")) // "the conference runs from 3 to 7 May"
}

// possessive reports a date at i that is a possessive's ("Monday's
// deploy", "this Friday's build"): an apostrophe and "s" glued to its
// last word, within three tokens.
func (f *finder) possessive(i int) bool {
	for k := i + 1; k <= i+3 && k+1 < len(f.t); k++ {
		if f.t[k].kind == kPunct {
			return f.glued(k) && f.word(k+1, "s") && f.apos(k+1) && f.glued(k+1)
		}
		if f.spaced(k) && f.t[k].kind != kNum && f.t[k].kw == kwNone {
			return false // past the date: "after Monday the team's..."
		}
	}
	return false
}

// proposed reports a bare weekday at i right after the verb of a
// proposal, "can we", "could we", "shall we", "should we" or "let's" and
// a verb ("Can we sync Tuesday?", "Let's meet Thursday"), which sets the
// day as "on" would; not after the verb's object ("Can we talk about the
// outage Tuesday?", "should we roll back the release Friday?": the day is
// the event's).
func (f *finder) proposed(p, i int) bool {
	if _, day := f.kw(i).weekday(); !day || p < 2 || f.t[p].kind != kWord || f.kw(p) != kwNone || f.word(p, "say") {
		return false // "let's say Tuesday" is an example
	}
	if f.word(p-1, "s") && f.apos(p-1) && f.word(p-3, "let") {
		return true // "let's sync Tuesday"
	}
	return (f.word(p-1, "we") || f.word(p-1, "i")) && (f.word(p-2, "can") || f.word(p-2, "could") || f.word(p-2, "shall") || f.word(p-2, "should"))
}

// weekdayAt reports a bare weekday at i ("Friday", "this Friday").
func (f *finder) weekdayAt(i int) bool {
	if f.kw(i) == kwThis || f.kw(i) == kwNext || f.kw(i) == kwLast {
		i++
	}
	_, day := f.kw(i).weekday()
	return day
}

// particle reports the adverb of a phrasal verb at n: "goes out", "flies
// back", "heads home".
func (f *finder) particle(n int) bool {
	for _, w := range [...]string{"out", "off", "back", "home", "up", "away"} {
		if f.word(n, w) {
			return true
		}
	}
	return false
}

// ing reports a verb in -ing at n ("flying", not "morning").
func (f *finder) ing(n int) bool {
	if n < 0 || n >= len(f.t) || f.t[n].kind != kWord {
		return false
	}
	w := strings.ToLower(f.s[f.t[n].start:f.t[n].end])
	switch w {
	case "during", "morning", "evening", "nothing", "something", "anything", "everything", "spring", "string":
		return false // no verbs ("the best time is during the winter")
	}
	return len(w) >= 5 && strings.HasSuffix(w, "ing")
}

// pronoun reports a personal pronoun that can lead a clause at n.
func (f *finder) pronoun(n int) bool {
	for _, p := range [...]string{"i", "we", "you", "he", "she", "they"} {
		if f.word(n, p) {
			return true
		}
	}
	return false
}

// yearSaid reads "last year", "this year", "next year" or "every year"
// (the year 0: a habit's, which has none) in the sentence
// of a month or day written as tokens [i, end) that names no year, up to 12 words on either
// side and no other time between ("last year we flew there on 2
// February"; not "in May, next month, next year"): the year it names.
// "Every year" counts only next to the date ("on 31 March every year"; not
// "I went to the Proms in August, as I do every year").
func (f *finder) yearSaid(i, end int) (y int, ok bool) {
	for j := i - 1; j >= 1 && j > i-12 && !f.t[j+1].line && !f.stop(j) && !f.newClause(j); j-- {
		if y, ok = f.relYearAt(j); ok || f.unit(j) {
			return y, ok && (y != 0 || j >= i-3) // "each year, on 3 January"
		}
		if y, ok = f.inYear(j); ok && (f.opens(j-1) || f.just(j, i)) {
			return y, true // "In 2019 I was in Paris on 3 May", "back in 2019 on 3 May"; not "born in 1990 and on 3 May I turn 34"
		}
	}
	for j := end; j < len(f.t) && j < end+11 && !f.t[j].line && !f.stop(j) && !f.newClause(j); j++ {
		if y, ok = f.relYearAt(j); ok || f.unit(j) {
			return y, ok && (y != 0 || j <= end+2) // "on 31 March every year", "in August, every year"
		}
		if y, ok = f.inYear(j); ok && j == end+1 {
			return y, true // "on 3 May in 2019", not "on 3 May I sold the car I bought in 2015"
		}
	}
	return 0, false
}

// just reports that only on, the or a comma come between the tokens at
// j and i: "in 2019 on 3 May", "in 1985, on 3 May".
func (f *finder) just(j, i int) bool {
	for k := j + 1; k < i; k++ {
		if f.kw(k) != kwOn && f.kw(k) != kwThe && !f.punct(k, ',') {
			return false
		}
	}
	return i-j <= 4
}

// opens reports that the token at j opens its sentence or line.
func (f *finder) opens(j int) bool {
	return j == 0 || f.t[j].line || f.stop(j-1)
}

// inYear reads "in" and a year at j, the year a sentence names: not
// "since 2019" or "until 2030", which bound a span rather than date a day
// in it.
func (f *finder) inYear(j int) (int, bool) {
	if !f.numN(j, 4) || f.kw(j-1) != kwIn || !f.rightOK(j+1) {
		return 0, false
	}
	if y := int(f.t[j].val); y >= MinYear && y <= MaxYear {
		return y, true
	}
	return 0, false
}

// newClause reports a comma at j that opens another clause with and,
// but or so ("last year was tough, but in March I got a new job").
func (f *finder) newClause(j int) bool {
	return f.punct(j, ',') && (f.word(j+1, "and") || f.word(j+1, "but") || f.word(j+1, "so"))
}

// born reports "I was born", "you were born" or "we were born" within
// the four words before a month or day at i that names no year ("I was
// born in March"): the speaker's birth, whose year the sentence does not
// give, so none is guessed. A child's ("our son was born on 3 May") is
// mostly news, of this year.
func (f *finder) born(i int) bool {
	for j := i - 1; j >= 2 && j >= i-4; j-- {
		if f.word(j, "born") {
			return f.word(j-1, "was") && f.word(j-2, "i") || f.word(j-1, "were") && (f.word(j-2, "you") || f.word(j-2, "we"))
		}
	}
	return false
}

// relYearAt reads "last year", "this year" or "next year" ending at j,
// and "every year" or "each year" as the year 0. None names the year of a
// date after "the" ("in the last year": the past twelve months; "the next
// year, in March, we moved": a story's) or after "since" ("since last
// year I've been saving, and in March we fly to Tokyo").
func (f *finder) relYearAt(j int) (y int, ok bool) {
	if !f.word(j, "year") {
		return 0, false
	}
	if f.kw(j-2) == kwThe || f.word(j-2, "since") {
		return 0, false
	}
	switch f.kw(j - 1) {
	case kwLast:
		return f.y - 1, true
	case kwThis:
		return f.y, true
	case kwNext:
		return f.y + 1, true
	case kwEvery:
		return 0, true // "every year in August": a habit, no year
	}
	if f.word(j-1, "each") {
		return 0, true
	}
	return 0, false
}

// periodWordAt is the token of the period word before the date at i
// ("early March", "mid-March", "late May"), or i when none is there.
func (f *finder) periodWordAt(i int) int {
	switch {
	case f.kw(i-1) == kwPeriod:
		return i - 1
	case f.punct(i-1, '-') && f.kw(i-2) == kwPeriod:
		return i - 2
	}
	return i
}

// partStart is the first token of the words before the date at i that
// name a part of it (part.go) or its week (weekof.go): "early" in "early
// March", "the" in "the end of March", "the second half of March" and
// "the week of March 9"; i when there are none.
func (f *finder) partStart(i int) int {
	_, at := f.partBefore(i)
	return min(at, f.weekBefore(i)) // "I'm off the week of Dec 14": from "the"
}

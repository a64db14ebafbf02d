package dates

// A person away, told around a date, says the date is ahead: "I'm off
// work from 2 to 6 November", "we're on holiday 11-15 August", "Christmas
// week I'm off.", "He's out until Jan 5", "OOO until Jan 5", "I'm back
// Monday". Read by tense for each word j near the date at i.

// absent reports the word at j, near the date at i (in the sentence from
// lo; from: "from" before the date), as one of a person away or back.
func (f *finder) absent(i, j, lo int, from bool) bool {
	be, pronoun := f.be(j)
	person := be && pronoun || f.heShes(j) // "he's" is as often "has": only before away
	switch {
	case be && j < i && (!from || f.inRange) && f.away(j+1):
		// "I'm off work from 2 to 6 November", "we're away 2-6 May",
		// "we're on holiday 11-15 August"; not "I'm off sick from 2
		// September"
		return true
	case be && j < i && f.inRange && pronoun && (f.word(j+1, "in") || f.word(j+1, "at")):
		// a stay said in the present before a range: "we're in Lisbon
		// from 3 to 7 May", "I'm at my parents' 20-24 June" (not "the
		// photos are in the folder from 3 to 7 May")
		return true
	case person && j > i && f.away(j+1) && f.awayEnds(j+2):
		// "Christmas week I'm off.", "Monday we're away", "Friday I'm off
		// work"; not "Good call on Monday, I'm off for the day", "On
		// Tuesday we're off by one"
		return true
	case j == lo && j < i && f.t[j].upper && f.away(j) && f.until(i) && f.endsSentence(i):
		// a status line that opens its sentence: "OOO until Jan 5", "Out
		// of office until Monday", "Off until the 4th"
		return true
	case j < i && f.heShes(j) && f.away(j+1):
		return true // "He's out until Jan 5", "she's off on Friday"
	case person && f.word(j+1, "back") && (j+2 == i || j+3 == i && f.kw(j+2) == kwOn || f.periodWordAt(i) == j+2) && !f.possessive(i):
		// "I'm back Monday", "she's back on the 5th": a person's return,
		// the date right after "back"; not "the bug is back on Tuesday",
		// "I'm back, what happened Tuesday?", "I'm back on Monday's branch"
		return true
	}
	return false
}

// away reports off, away, out (of office, of town), OOO, or on holiday,
// vacation or leave at j: after a form of be, what one is to be on a
// date.
func (f *finder) away(j int) bool {
	if f.word(j, "off") || f.word(j, "away") || f.word(j, "ooo") {
		return true
	}
	if f.word(j, "out") {
		// "I'm out until Jan 5", "out of office", "out of town"; not "out
		// of milk"
		o := j + 2
		if f.kw(o) == kwThe {
			o++
		}
		return !f.word(j+1, "of") || f.word(o, "office") || f.word(o, "town")
	}
	return f.word(j, "on") && (f.word(j+1, "holiday") || f.word(j+1, "vacation") || f.word(j+1, "leave"))
}

// awayEnds reports the end of "off" or "away" (after a form of be, after
// a date) at k: the clause ends, or "work" or "school" ends it; "on
// holiday" (away's) is whole already.
func (f *finder) awayEnds(k int) bool {
	if f.word(k-1, "on") {
		return true // "on holiday", "on leave": k is past "on"; the word after it is away's
	}
	if f.word(k, "holiday") || f.word(k, "vacation") || f.word(k, "leave") {
		k++
	}
	if f.word(k, "work") || f.word(k, "school") {
		k++
	}
	return k >= len(f.t) || f.t[k].line || f.stop(k) || f.punct(k, ',')
}

// until reports until or till right before the date at i (or before
// its "the"): a status's end.
func (f *finder) until(i int) bool {
	p := i - 1
	if f.kw(p) == kwThe {
		p--
	}
	return f.word(p, "until") || f.word(p, "till")
}

// endsSentence reports the date at i as its sentence's last words: only
// punctuation or the end of the line or text after it ("OOO until Jan 5";
// not "OOO until Jan 5 last year", "Out of office until Jan 5, so I
// missed it").
func (f *finder) endsSentence(i int) bool {
	k := i + 1
	// the date's own tokens: "Jan 5", "the 4th", "Monday"
	for k < len(f.t) && !f.t[k].line && f.t[k].kind != kPunct && (f.glued(k) || f.t[k].kind == kNum || f.t[k].kw.month() > 0) {
		k++
	}
	return k >= len(f.t) || f.t[k].line || f.stop(k)
}

// heShes reports the "s" of "he's" or "she's" at j, which is "is"
// before away ("he's out", "she's off") and as often "has" before a
// participle ("she's left"): read only before away.
func (f *finder) heShes(j int) bool {
	return f.word(j, "s") && f.apos(j) && (f.word(j-2, "he") || f.word(j-2, "she"))
}

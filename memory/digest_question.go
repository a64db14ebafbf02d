package memory

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Which questions a digest answers (digest.go): asksOnlyOfPeriods and the
// words it reads.

// lightWords are the words that a question about a period may
// say without asking anything of it beyond the period: what happened,
// was done, worked on, talked about, said or asked in general, and the
// units of time a period's own words leave ("what did we do that day").
var lightWords = wordSet(`happen happened happening do doing done work working worked
	talk talked talking discuss discussed discussing say said mention mentioned
	going went gone get got gotten up thing things anything something everything stuff else
	ask asked asking accomplish accomplished achieve achieved new tell told show showed shown
	summarize summarise recap remind us lately cover covered miss missed changed
	catch rundown overview highlights any
	day days week weeks weekend month months year years over during throughout between
	ok okay so thanks please pls give hey hi
	session sessions conversation conversations chat summary`)

// lightNouns are the light words that name a thing, which a question may
// ask about as its topic ("What did we do with sessions last week?"): one
// after "with", "about", "on", "the" or "for" is no light word.
var lightNouns = wordSet(`session sessions conversation conversations chat summary thing things stuff`)

// pastWords say that a question asks what was, not what is to come, or
// asks for a recap: a digest's question has one ("What did we do today?",
// "What happened in October?", "Summarize last week", "Give me a summary
// of October", "Catch me up on Monday"), and a question without one asks
// of now or of a plan ("What's happening Monday?", "What's on today?",
// "What do we do in December?"), which a search finds in the memories
// that say it. A period named as past says the past itself ("What's new
// since Monday?", "Tell me about last week": Period.Back).
var pastWords = wordSet(`did was were had happened worked talked discussed said mentioned
	asked accomplished achieved done went gone been told showed shown covered missed changed
	summarize summarise recap summary rundown overview highlights catch`)

// modals ask of a plan or a duty ("What should I do today?", "What can we
// do this week?", "What did I say I might do?"), which a search finds in
// the memories that say it; so does "to" ("What do I have to do?", "what
// I'm going to do"), but not "up to" ("What were we up to last week?"),
// and a modal before "you" asks a favour ("Can you recap yesterday?").
// A negation asks of what was not ("What did we not do?"), and a person's
// pronoun of someone ("What did she ask yesterday?"): a search.
var modals = wordSet(`will would shall should must can could may might need needs gonna to
	not no never nothing he she him her his hers they them their theirs`)

// timeUnitWords are the light words that name a unit of time.
var timeUnitWords = wordSet(`day days week weeks weekend month months year years`)

// topicBefore are the words before which a light noun is a topic.
var topicBefore = wordSet(`with about on the for`)

// speech verbs that, followed by another verb, report a plan ("What did
// we say we were doing this week?", "What did we talk about doing today?").
var speech = wordSet(`say said tell told talk talked discuss discussed mention mentioned`)

// digestStop are the stop words, whole: a stem (five letters) would take
// "shoulder" for "should".
var digestStop = wordSet(stopList)

// wordSet is the words of list, whole (a stem would take "conversion" for
// "conversation" and "accommodation" for "accomplish").
func wordSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(list) {
		m[w] = true
	}
	return m
}

// asksOnlyOfPeriods reports whether text names periods (ps, found in it by
// queryPeriods against now) and, outside them, says no word but stop words
// and lightWords, and one word of the past (pastWords): a question a
// digest answers. Not one that names someone (a word capitalised inside a
// sentence: "What did Will say last week?"), quotes or writes code
// (codeLike), has a modal, a negation or a pronoun of a person (modals),
// reports a plan (a speech verb and another verb after it, of a period
// past now), names a period ahead of now ("What did we say about next
// week?") or as a topic ("about Friday"), or is a long prompt (more than
// questionWordsRead words).
func asksOnlyOfPeriods(text string, ps []Period, now time.Time) bool {
	if len(ps) == 0 {
		return false
	}
	past, ahead := false, false
	rest := text
	for _, p := range ps {
		if p.From.After(now) || aboutPeriod(text, p) {
			return false
		}
		ahead = ahead || p.To.After(now)
		rest = strings.ReplaceAll(rest, p.Text, " ")
		past = past || p.Back // "last week", "two days ago", "since Monday"
	}
	if codeLike(rest) {
		return false
	}
	fields, starts := sentenceWords(rest, questionWordsRead+1)
	if len(fields) > questionWordsRead {
		return false // a long prompt asks more than a period
	}
	names, spoke := caseSaysNames(fields), false
	for i, f := range fields {
		f = strings.ReplaceAll(f, "’", "'")
		w, contracted := contraction(strings.ToLower(strings.Trim(f, "'")))
		if w = strings.TrimSuffix(w, "'s"); w == "s" && strings.HasPrefix(f, "'") {
			continue // a period's possessive ("yesterday's")
		}
		if first, _ := utf8.DecodeRuneInString(f); names && !starts[i] && unicode.IsUpper(first) && w != "i" && !strings.HasPrefix(w, "i'") {
			return false // a name
		}
		prev, next := "", ""
		if i > 0 {
			prev = strings.ToLower(fields[i-1])
		}
		if i+1 < len(fields) {
			next = strings.ToLower(fields[i+1])
		}
		for _, k := range []string{w, contracted} {
			if asksMore(k, prev, next, spoke && ahead) {
				return false
			}
			spoke = spoke || speech[k]
			past = past || pastWords[k]
		}
	}
	return past
}

// asksMore reports whether the question word k, between prev and next,
// asks more than a period: a word neither stop, light nor of the past, a
// modal (not a favour, "Can you …", nor "up to"), a negation, "have on"
// (a plan), a light noun as a topic ("with sessions"), a unit of time of
// another period that its reading left out ("the weekend of May 6"; "the
// week of Nov 9" is read whole), or, reported (after a speech verb, of a
// period past now), a second verb ("What did we say we were doing this
// week?").
func asksMore(k, prev, next string, reported bool) bool {
	switch {
	case k == "":
		return false
	case modals[k]:
		return !(next == "you" && k != "to") && !(k == "to" && prev == "up")
	case strings.HasSuffix(k, "n't"), (k == "have" || k == "had" || k == "got") && next == "on":
		return true
	case lightNouns[k] && topicBefore[prev], timeUnitWords[k] && next == "of":
		return true
	case reported && lightWords[k] && !speech[k] && k != "about":
		return true
	}
	return !digestStop[k] && !lightWords[k] && !pastWords[k]
}

// codeLike reports whether text (a question, its periods cut) quotes
// something or writes what reads as code or a number: a quote mark or a
// backtick ("What did we say about `show` yesterday?", 'list'), a digit
// ("#1234", "404s", "0.3.1", "s3"), a symbol or a bracket ("get()",
// "if/else", "🐛"), or a dot inside a word ("list.go").
func codeLike(text string) bool {
	prev := ' '
	for i, r := range text {
		switch {
		case unicode.IsDigit(r), unicode.IsSymbol(r), strings.ContainsRune("`\"“”‘«»「」#@/\\()[]{}<>=+*&%$_|~^", r):
			return true
		case r == '\'' && !unicode.IsLetter(prev) && !possessive(text[i+1:]):
			return true // an opening quote, not an apostrophe ("yesterday's", its period cut)
		case r == '.' && unicode.IsLetter(prev):
			if next, _ := utf8.DecodeRuneInString(text[i+1:]); unicode.IsLetter(next) {
				return true
			}
		}
		prev = r
	}
	return false
}

// possessive reports whether rest, what follows an apostrophe, is the s
// of a possessive: "s" and no letter after it.
func possessive(rest string) bool {
	if !strings.HasPrefix(rest, "s") {
		return false
	}
	next, _ := utf8.DecodeRuneInString(rest[1:])
	return !unicode.IsLetter(next)
}

// aboutPeriod reports whether text names period p as a topic: "for"
// before it ("… on Monday for Friday?"), or "about" after a verb of
// saying or knowing ("What did we say about Friday?"; not "What did we
// talk about yesterday?", whose "about" is the talk's).
func aboutPeriod(text string, p Period) bool {
	i := strings.Index(text, p.Text)
	if i < 0 {
		return false
	}
	before := strings.Fields(strings.ToLower(text[:i]))
	n := len(before)
	return n > 0 && (before[n-1] == "for" || before[n-1] == "about" && n > 1 && sayAbout[before[n-2]])
}

// sayAbout are the verbs whose "about" names a topic.
var sayAbout = wordSet(`say said tell told mention mentioned know knew hear heard think thought
	decide decided plan planned`)

package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A question that names a period and asks nothing else of it ("What did
// we do last week?", "What happened in October?", "Summarise yesterday")
// has no words for the search to match and no meaning for the vectors to
// find: ranked by the search, the period's shortest and emptiest turns
// came first ("Done. Anything else?"), as they are as close as any to a
// question without content. Such a question is answered by the period's
// sessions instead, as a digest: the sessions dated in it with the most
// turns, each shown by its turns of most content (contentWords), one
// passage a session, oldest first, in the space k excerpts take. Measured:
// EVALS.md, "A question that names only a period".

// lightWords are the words that a question about a period may
// say without asking anything of it beyond the period: what happened,
// was done, worked on, talked about, said or asked in general, and the
// units of time a period's own words leave ("what did we do that day").
var lightWords = wordSet(`happen happened happening do doing done work working worked
	talk talked talking discuss discussed discussing say said mention mentioned
	going went gone get got gotten up thing things anything something everything stuff else
	ask asked asking accomplish accomplished achieve achieved new tell told show showed shown
	summarize summarise recap remind us lately cover covered miss missed changed
	day days week weeks weekend month months year years over during throughout
	ok okay so thanks please pls give hey hi
	session sessions conversation conversations chat summary`)

// lightNouns are the light words that name a thing, which a question may
// ask about as its topic ("What did we do with sessions last week?"): one
// after "with", "about", "on", "the" or "for" is no light word.
var lightNouns = wordSet(`session sessions conversation conversations chat summary thing things stuff`)

// pastWords say that a question asks what was, not what is to come: a
// digest's question has one ("What did we do today?", "What happened in
// October?", "Summarize last week"), and a question without one asks of
// now or of a plan ("What's happening Monday?", "What's on today?", "What
// do we do in December?"), which a search finds in the memories that say
// it. A span back to now says the past itself ("What's new since
// Monday?").
var pastWords = wordSet(`did was were had happened worked talked discussed said mentioned
	asked accomplished achieved done went gone been told showed shown covered missed changed
	summarize summarise recap`)

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
// week?"), or a period as a topic ("about Friday").
func asksOnlyOfPeriods(text string, ps []Period, now time.Time) bool {
	if len(ps) == 0 || codeLike(text, ps) {
		return false
	}
	past, ahead := false, false
	for _, p := range ps {
		if p.From.After(now) || aboutPeriod(text, p) {
			return false
		}
		ahead = ahead || p.To.After(now)
		text = strings.ReplaceAll(text, p.Text, " ")
		t := strings.ToLower(p.Text)
		// a span back to now ("since Monday", "the last three days") asks of the past
		past = past || strings.HasPrefix(t, "since ") || strings.HasPrefix(t, "the last ") || strings.HasPrefix(t, "the past ")
	}
	fields, starts := sentenceWords(text)
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
		next := ""
		if i+1 < len(fields) {
			next = strings.ToLower(fields[i+1])
		}
		for _, k := range []string{w, contracted} {
			favour := next == "you" && k != "to"
			if modals[k] && !favour && !(k == "to" && i > 0 && strings.EqualFold(fields[i-1], "up")) {
				return false
			}
			if strings.HasSuffix(k, "n't") || (k == "have" || k == "had" || k == "got") && next == "on" {
				return false // a negation; "have on", a plan
			}
			if lightNouns[k] && i > 0 && topicBefore[strings.ToLower(fields[i-1])] {
				return false // "with sessions": a topic
			}
			if timeUnitWords[k] && next == "of" {
				return false // "the week of Nov 9": a period the finder read as its day
			}
			if spoke && ahead && lightWords[k] && !speech[k] && k != "about" {
				return false // a plan reported
			}
			spoke = spoke || speech[k]
			past = past || pastWords[k]
			if k != "" && !digestStop[k] && !lightWords[k] && !pastWords[k] {
				return false
			}
		}
	}
	return past
}

// codeLike reports whether text, outside its periods ps, quotes something
// or writes what reads as code or a number: a quote mark or a backtick
// ("What did we say about `show` yesterday?", 'list'), a digit ("#1234",
// "404s", "0.3.1", "s3"), a symbol or a bracket ("get()", "if/else",
// "🐛"), or a dot inside a word ("list.go").
func codeLike(text string, ps []Period) bool {
	for _, p := range ps {
		text = strings.ReplaceAll(text, p.Text, " ")
	}
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

// DigestSessions bounds the sessions a digest reads, in multiples of k:
// the periods' sessions with the most turns.
const DigestSessions = 3

// A digest reads a session's turns DigestWindow at a time, from its
// first, until it has passed the periods or read DigestMostTurns: a
// session resumed in a period holds its turns there after the others.
// It reads DigestAllTurns at most in all (the sessions read after that, a
// window each): a month of long sessions is not read whole.
const (
	DigestWindow    = 200
	DigestMostTurns = 2000
	DigestAllTurns  = 10000
)

// sentenceWords are the words of text (runs of letters and apostrophes),
// and whether each starts a sentence: the first, or the first after a
// '.', '?' or '!'.
func sentenceWords(text string) (words []string, starts []bool) {
	start := true
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && r != '\'' && r != '’' {
			start = start || r == '.' || r == '?' || r == '!'
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) && r != '\'' && r != '’' {
				break
			}
			j += n
		}
		words, starts = append(words, text[i:j]), append(starts, start)
		start, i = false, j
	}
	return words, starts
}

// digestHits are the hits of a digest of q's periods (see
// asksOnlyOfPeriods): the sessions dated in them (each period's, once)
// with the most turns, at most DigestSessions·k (ties spread over the
// periods: spread), each session's turns in the periods ranked by their
// content words (contentWords), and the hits taken a turn of each session
// at a time, the sessions in that order, so that a budget keeps one turn
// of every session before a second of any. sessions counts the sessions
// read that hold turns in the periods, and those past the ones read.
func (s *Service) digestHits(ctx context.Context, q Query) (hits []Hit, sessions int, err error) {
	dated, err := s.periodSessions(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	spread(dated)
	slices.SortStableFunc(dated, func(a, b SessionInfo) int { return cmp.Compare(b.Turns, a.Turns) })
	read := dated[:min(len(dated), DigestSessions*q.K)]
	var ranked [][]Memory // each session's turns in the periods, by content
	left := DigestAllTurns
	for _, si := range read {
		turns, n, err := s.turnsIn(ctx, q, si.ID, max(DigestWindow, min(DigestMostTurns, left)))
		if err != nil {
			return nil, 0, err
		}
		left -= n
		words := make(map[string]int, len(turns))
		for _, m := range turns {
			words[m.ID] = contentWords(m.Text)
		}
		slices.SortStableFunc(turns, func(a, b Memory) int { return cmp.Compare(words[b.ID], words[a.ID]) })
		if len(turns) > 0 {
			ranked = append(ranked, turns)
		}
	}
	for i := 0; ; i++ {
		n := len(hits)
		for _, turns := range ranked {
			if i < len(turns) {
				hits = append(hits, Hit{Memory: turns[i]})
			}
		}
		if len(hits) == n {
			break
		}
	}
	for i := range hits {
		hits[i].Score = 1 / float64(i+1)
	}
	return hits, len(ranked) + len(dated) - len(read), nil
}

// periodSessions are the sessions of q's namespace dated in one of its
// periods (and within its after and before, its session, not its excluded
// one), each once, oldest first.
func (s *Service) periodSessions(ctx context.Context, q Query) ([]SessionInfo, error) {
	var out []SessionInfo
	seen := map[string]bool{}
	for _, p := range q.Periods {
		f := SessionFilter{After: p.From, Before: p.To.Add(-time.Nanosecond), Limit: MaxSessionPage}
		if !q.After.IsZero() {
			f.After = maxTime(f.After, q.After)
		}
		if !q.Before.IsZero() {
			f.Before = minTime(f.Before, q.Before)
		}
		if f.Before.Before(f.After) {
			continue
		}
		for {
			page, err := s.store.Sessions(ctx, q.Namespace, f)
			if err != nil {
				return nil, fmt.Errorf("listing the sessions of namespace %s: %w", q.Namespace, err)
			}
			for _, si := range page.Sessions {
				if !seen[si.ID] && (q.SessionID == "" || si.ID == q.SessionID) && si.ID != q.ExcludeSession {
					seen[si.ID] = true
					out = append(out, si)
				}
			}
			if f.Cursor = page.Next; f.Cursor == "" {
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b SessionInfo) int { return a.Date.Compare(b.Date) })
	return out, nil
}

// spread orders sessions (oldest first) so that any first n of them lie
// across the whole span: by the bits of their position reversed (the
// first, the middle, the quarters, ...). A digest takes the sessions with
// the most turns, and where many have as many, a year's would otherwise
// all be of its last days.
func spread(sessions []SessionInfo) {
	bits := 0
	for 1<<bits < len(sessions) {
		bits++
	}
	key := make(map[string]uint, len(sessions))
	for i, si := range sessions {
		r := uint(0)
		for b := 0; b < bits; b++ {
			r |= uint(i>>b&1) << (bits - 1 - b)
		}
		key[si.ID] = r
	}
	slices.SortStableFunc(sessions, func(a, b SessionInfo) int { return cmp.Compare(key[a.ID], key[b.ID]) })
}

// turnsIn are the turns of session dated in one of q's periods, read a
// window at a time from its first (DigestWindow), until a window passes
// the last period's end, the session ends, or most are read (read counts
// them).
func (s *Service) turnsIn(ctx context.Context, q Query, session string, most int) (out []Memory, read int, err error) {
	end := q.Periods[0].To
	for _, p := range q.Periods[1:] {
		end = maxTime(end, p.To)
	}
	for from := 0; from < most; from += DigestWindow {
		turns, err := s.store.Turns(ctx, q.Namespace, session, from, from+DigestWindow-1)
		if err != nil {
			return nil, read, fmt.Errorf("reading session %s: %w", session, err)
		}
		read += len(turns)
		for _, m := range turns {
			if inAny(q.Periods, m.SessionDate) {
				out = append(out, m)
			}
		}
		if len(turns) == 0 || !turns[len(turns)-1].SessionDate.Before(end) {
			break
		}
	}
	return out, read, nil
}

// contentWords counts the distinct words of text that are no stop words,
// up to DefaultExcerpt: what a digest ranks a session's turns by, so that
// "Done. Anything else?" comes after the turn that says what was done,
// and a long turn counts no more than its excerpt shows.
func contentWords(text string) int {
	if len(text) > contentBytes {
		// a long turn's first words hold its excerpt's worth of content
		if i := strings.LastIndexByte(text[:contentBytes], ' '); i > 0 {
			text = text[:i]
		}
	}
	return min(len(queryWords(text).index), DefaultExcerpt)
}

// contentBytes bounds what contentWords reads of a turn.
const contentBytes = 2048

// inAny reports whether t falls in one of ps.
func inAny(ps []Period, t time.Time) bool {
	return slices.ContainsFunc(ps, func(p Period) bool { return p.Contains(t) })
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// digest is the recall of a question that names only periods (see
// asksOnlyOfPeriods): digestHits, shown as passages in the space k
// excerpts take with their headers (as for a question that asks for
// several things; within max_tokens), or, without excerpts, the first k
// whole; oldest first,
// unless the request asks for another order than relevance. Where no turn
// is dated in the periods (a question of next week, or of a week without
// sessions) there is no digest (ok false): a search finds the memories
// that mention a date there ("we deploy next Tuesday").
func (s *Service) digest(ctx context.Context, q Query, req RecallRequest, order Order) (res RecallResult, ok bool, err error) {
	hits, sessions, err := s.digestHits(ctx, q)
	if err != nil || len(hits) == 0 {
		return RecallResult{}, false, err
	}
	pending, err := s.pending(ctx, q.Namespace)
	if err != nil {
		return RecallResult{}, false, fmt.Errorf("counting the memories waiting for vectors: %w", err)
	}
	res = RecallResult{Namespace: q.Namespace, K: q.K, Periods: q.Periods, Pending: pending, Digest: true, Sessions: sessions}
	if req.Explain {
		res.Candidates = slices.Clone(hits)
	}
	turns, err := s.withContext(ctx, hits, req.Context)
	if err != nil {
		return RecallResult{}, false, err
	}
	if order == ByRelevance {
		order = Chronological
	}
	budget := req.MaxTokens
	if req.Fill && req.Excerpt > 0 {
		if least := q.K * (req.Excerpt + SeveralHeader); budget == 0 || least < budget {
			budget = least
		}
	} else if len(hits) > q.K {
		hits, turns = hits[:q.K], turns[:q.K]
	}
	ps := s.passages(ctx, q.Namespace, hits, turns, budget, 0, 0, req.Excerpt, queryWords(""), order)
	arrange(ps, order, func(p Passage) Memory { return p.Memories[0] })
	res.Hits, res.Passages = returnedHits(hits, ps, order), ps
	if err := s.filler.failure(); err != nil && pending > 0 {
		res.PendingError = err.Error()
	}
	return res, true, nil
}

// DigestNote says what a digest shows, for the model to read before it:
// `A digest of the sessions of "last week" (2026-11-09 to 2026-11-15): 4
// of its 6, each by its turns of most content.` The sessions are those dated in the
// periods and hold turns there, among their first DigestMostTurns (one
// whose turns there lie past those is neither shown nor counted).
func (r RecallResult) DigestNote() string {
	var periods []string
	for _, p := range r.Periods {
		from, last := p.From.Format(time.DateOnly), p.To.AddDate(0, 0, -1).Format(time.DateOnly)
		if from == last {
			periods = append(periods, fmt.Sprintf("%q (%s)", p.Text, from))
		} else {
			periods = append(periods, fmt.Sprintf("%q (%s to %s)", p.Text, from, last))
		}
	}
	what := "A digest of the sessions of " + strings.Join(periods, " and ")
	switch shown := len(sessionsOf(r.Passages, passageSession)); {
	case r.Sessions == 1 && shown == 1:
		return what + ": its one session, by its turns of most content."
	case r.Sessions == 2 && shown == 2:
		return what + ": both, each by its turns of most content."
	case shown == r.Sessions:
		return fmt.Sprintf("%s: all %d, each by its turns of most content.", what, shown)
	default:
		return fmt.Sprintf("%s: %d of its %d, each by its turns of most content.", what, shown, r.Sessions)
	}
}

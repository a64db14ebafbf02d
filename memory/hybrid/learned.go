package hybrid

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"agentmem/memory"
	"agentmem/memory/internal/script"
)

// The learned order: each fused candidate's chance of being evidence,
// from what the search already knows of it and of the pool it came with,
// by a model fit on the dev sets (learned_model.go; EVALS.md, "The
// learned order"). Rank orders the candidates by it; it reads the
// candidates alone, with no search beyond the one that made the pool.

// features are what the model reads of one candidate, in featureNames'
// order.
type features [numFeatures]float64

const numFeatures = 19

// featureNames name the features, in order (the model's file and the
// tests name them so).
var featureNames = [numFeatures]string{
	"score", "fused", "text_rr", "vector_rr", "text_score", "vector_score",
	"boosted", "log_words", "log_content", "question", "coverage",
	"speaker", "other_speaker", "log_session", "session_best", "near_best",
	"rank_rr", "periods", "user",
}

// featuresOf gives each hit's features (kept[i] is hit i's fused
// candidate; its Score, the boosts included). The query's content words
// are weighted by how rare they are among the candidates (an idf over the
// pool), so the coverage of a candidate is the share of the query's
// weight its words carry.
func featuresOf(q memory.Query, cs []memory.Hit, kept []Fused) []features {
	if len(cs) == 0 {
		return nil
	}
	best, textBest, vecBest := bestScores(cs, kept)
	qwords := queryContent(q.Text)
	counts := make([]wordCounts, len(cs))
	df := make([]int, len(qwords))
	countPool(cs, qwords, counts, df)
	var qweight float64
	for j := range qwords {
		qweight += idf(len(cs), df[j])
	}
	p := poolRanks{
		rank:        make([]int, len(cs)),
		sessions:    map[string]int{},
		sessionBest: map[string]int{},
		top:         map[turnKey]bool{},
	}
	p.read(cs)
	out := make([]features, len(cs))
	for i, c := range cs {
		m, fu, f := c.Memory, kept[i], &out[i]
		f[0] = ratio(c.Score, best)
		f[1] = ratio(fu.Score, best)
		f[2] = reciprocal(fu.TextRank)
		f[3] = reciprocal(fu.VectorRank)
		f[4] = ratio(fu.TextScore, textBest)
		f[5] = ratio(fu.VectorScore, vecBest)
		f[6] = flag(c.Score > fu.Score)
		f[7] = math.Log1p(float64(counts[i].words))
		f[8] = math.Log1p(float64(counts[i].content))
		f[9] = flag(strings.HasSuffix(strings.TrimSpace(m.Text), "?"))
		if qweight > 0 {
			f[10] = covered(counts[i].has, df, len(cs)) / qweight
		}
		p.features(f, &q, i, &m)
	}
	return out
}

// bestScores are the best of the hits' scores, and of their fused
// candidates' text and vector scores.
func bestScores(cs []memory.Hit, kept []Fused) (best, textBest, vecBest float64) {
	for i, c := range cs {
		best = max(best, c.Score)
		textBest = max(textBest, kept[i].TextScore)
		vecBest = max(vecBest, kept[i].VectorScore)
	}
	return best, textBest, vecBest
}

// countPool counts each hit's words against the query's content words
// into counts, and into df how many hits hold each of them.
func countPool(cs []memory.Hit, qwords []string, counts []wordCounts, df []int) {
	for i, c := range cs {
		counts[i] = countWords(c.Memory.Text, qwords)
		for j := range qwords {
			if counts[i].has&(1<<j) != 0 {
				df[j]++
			}
		}
	}
}

// idf is the weight of a query word that df of the pool's n candidates
// hold.
func idf(n, df int) float64 { return math.Log(1 + float64(n)/float64(1+df)) }

// covered is the idf weight (over a pool of n) of the query's words that
// has holds (bit j for word j, which df[j] candidates hold).
func covered(has uint64, df []int, n int) float64 {
	var got float64
	for j := range df {
		if has&(1<<j) != 0 {
			got += idf(n, df[j])
		}
	}
	return got
}

// poolRanks are where the candidates stand in their pool, by score.
type poolRanks struct {
	rank        []int            // candidate i's place, 0 the best
	sessions    map[string]int   // how many candidates each session has
	sessionBest map[string]int   // each session's best candidate
	top         map[turnKey]bool // the turns of the AdjacentFrom best
}

// read fills p from the hits, ordered by score (ties in their order).
func (p *poolRanks) read(cs []memory.Hit) {
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cs[b].Score, cs[a].Score) })
	for r, i := range order {
		p.rank[i] = r
		s := cs[i].Memory.SessionID
		p.sessions[s]++
		if _, ok := p.sessionBest[s]; !ok {
			p.sessionBest[s] = i
		}
		if r < AdjacentFrom {
			p.top[turnKey{s, cs[i].Memory.Turn}] = true
		}
	}
}

// features sets the features of candidate i, memory m, that its speaker,
// session, place in the pool, the query's periods and its role give.
func (p *poolRanks) features(f *features, q *memory.Query, i int, m *memory.Memory) {
	named := slices.Contains(q.Speakers, m.Speaker)
	f[11] = flag(named)
	f[12] = flag(len(q.Speakers) > 0 && !named)
	f[13] = math.Log(float64(p.sessions[m.SessionID]))
	f[14] = flag(p.sessionBest[m.SessionID] == i)
	f[15] = flag(p.top[turnKey{m.SessionID, m.Turn - 1}] || p.top[turnKey{m.SessionID, m.Turn + 1}])
	f[16] = 1 / float64(1+p.rank[i])
	f[17] = flag(len(q.Periods) > 0)
	f[18] = flag(m.Role == "user")
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func reciprocal(rank int) float64 {
	if rank <= 0 {
		return 0
	}
	return 1 / float64(rank)
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// nextWord is the first word of text at or after i, lower-cased into
// buf, and where to look for the next; an empty word when there is none.
// A word is a run of letters (any script's, with their combining marks)
// and apostrophes, a typographic one (’) read as ASCII's; a character of
// a script written without spaces (script.Spaceless) is a word of its
// own. ASCII text is read a byte at a time.
func nextWord(text string, i int, buf []byte) ([]byte, int) {
	b := buf[:0]
	for ; i < len(text); i++ {
		switch ch := text[i]; {
		case ch >= 'a' && ch <= 'z' || ch == '\'':
			b = append(b, ch)
		case ch >= 'A' && ch <= 'Z':
			b = append(b, ch+'a'-'A')
		case ch >= utf8.RuneSelf:
			return wordOnFrom(text, i, b)
		case len(b) > 0:
			return b, i + 1
		}
	}
	return b, i
}

// wordOnFrom is nextWord from its first byte outside ASCII on, with the
// word read so far in b. A word with combining marks is composed (NFC),
// so that "café" written with a combining accent meets "café" written
// without; Greek's final sigma is read as the other.
func wordOnFrom(text string, i int, b []byte) ([]byte, int) {
	marks := false
	for i < len(text) {
		r, n := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case r == '’' || r == '‘' || r == 'ʼ':
			r = '\''
		case script.Spaceless(r):
			if len(b) > 0 {
				return composed(b, marks), i
			}
			return utf8.AppendRune(b, r), i + n
		case unicode.IsMark(r):
			if len(b) == 0 {
				i += n
				continue
			}
			marks = true
		case unicode.IsLetter(r):
			if r = unicode.ToLower(r); r == 'ς' {
				r = 'σ'
			}
		case r == '\'':
		case len(b) > 0:
			return composed(b, marks), i + n
		default:
			i += n
			continue
		}
		b = utf8.AppendRune(b, r)
		i += n
	}
	return composed(b, marks), i
}

// composed is b in NFC where it holds combining marks.
func composed(b []byte, marks bool) []byte {
	if !marks {
		return b
	}
	return norm.NFC.Bytes(b)
}

// maxQueryWords bounds the query's content words the coverage counts.
const maxQueryWords = 64

// wordCounts are what the learned order reads of a candidate's words:
// how many it has, how many of them are content words (repeats
// counted), and which of the query's content words it holds (bit j for
// the query's word j).
type wordCounts struct {
	words, content int
	has            uint64
}

// countWords counts text's words against the query's content words.
func countWords(text string, qwords []string) wordCounts {
	var c wordCounts
	var buf [64]byte
	for i := 0; ; {
		var w []byte
		if w, i = nextWord(text, i, buf[:]); len(w) == 0 {
			return c
		}
		c.words++
		if w, ok := contentWord(w); ok {
			c.content++
			for j, q := range qwords {
				if string(w) == q {
					c.has |= 1 << j
					break
				}
			}
		}
	}
}

// queryContent is the query's distinct content words, in order, at most
// maxQueryWords.
func queryContent(text string) []string {
	var out []string
	var buf [64]byte
	for i := 0; len(out) < maxQueryWords; {
		var w []byte
		if w, i = nextWord(text, i, buf[:]); len(w) == 0 {
			break
		}
		if w, ok := contentWord(w); ok && !slices.Contains(out, string(w)) {
			out = append(out, string(w))
		}
	}
	return out
}

// contentWord is w as the learned order compares it, if it is a content
// word (three letters or more, not a stop word; or a character of Han or
// Katakana, a word of its own, that is not a function character, as
// "the" is not a content word of English): quotes and a possessive
// 's cut ("John's" is "john"), then its commonest ending ("-ing", "-ed",
// "-es" after s, x, z, ch or sh, "-s", "-ly" of a long word), then a
// final e, so that a word and its inflections meet: "volunteering",
// "volunteered" and "volunteers" are "volunteer"; "race", "races",
// "raced" and "racing" are "rac". A cheap stemmer, not Porter's: it runs
// for every word of every candidate.
func contentWord(w []byte) ([]byte, bool) {
	if len(w) == 3 && w[0] >= 0xe3 { // one character from U+3000 on
		r, _ := utf8.DecodeRune(w)
		return w, script.Spaceless(r) && r != 0x30fc && !script.FunctionCharacter(r)
	}
	for len(w) > 0 && w[0] == '\'' {
		w = w[1:]
	}
	for len(w) > 0 && w[len(w)-1] == '\'' {
		w = w[:len(w)-1]
	}
	if n := len(w); n > 2 && w[n-2] == '\'' && w[n-1] == 's' {
		w = w[:n-2]
	}
	if len(w) < 3 || short(w) || isStop(w) {
		return nil, false
	}
	n := len(w)
	cut := 0
	switch w[n-1] {
	case 'g':
		if n >= 6 && w[n-3] == 'i' && w[n-2] == 'n' {
			cut = 3 // -ing
		}
	case 'd':
		if n >= 5 && w[n-2] == 'e' {
			cut = 2 // -ed
		}
	case 's':
		switch {
		case n >= 5 && w[n-2] == 'e' && sibilant(w[:n-2]):
			cut = 2 // -es
		case n >= 4 && w[n-2] != 's':
			cut = 1 // -s, not of "class"
		}
	case 'y':
		if n >= 7 && w[n-2] == 'l' {
			cut = 2 // -ly
		}
	}
	w = w[:n-cut]
	if n := len(w); n > 3 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w, true
}

// short says whether w, of three bytes or more, has fewer than three
// letters: a word of one or two letters outside ASCII ("où", "ça"). Such
// a word starts or ends with a byte outside ASCII, so ASCII words are
// told apart without counting (a word of two letters with an accent
// between them, left uncomposed, is missed: a scan of every byte cost
// this hot loop 10-15%). A combining accent (U+0300-U+036F, left where
// no letter composes with it) is no letter; the vowel signs of Indic
// scripts, marks too, are part of their syllable and count.
func short(w []byte) bool {
	if w[0] < utf8.RuneSelf && w[len(w)-1] < utf8.RuneSelf {
		return false
	}
	n := 0
	for i := 0; i < len(w) && n < 3; {
		r, size := utf8.DecodeRune(w[i:])
		if r < 0x300 || r > 0x36f {
			n++
		}
		i += size
	}
	return n < 3
}

// sibilant says whether a stem ends in s, x, z, ch or sh, which take
// "-es".
func sibilant(w []byte) bool {
	n := len(w)
	switch w[n-1] {
	case 's', 'x', 'z':
		return true
	case 'h':
		return n > 1 && (w[n-2] == 'c' || w[n-2] == 's')
	}
	return false
}

// isStop says whether w is a stop word: a word of at most 8 letters is
// looked up packed in a number, in a small open-addressed table (no
// string hashed: this runs for every word of every candidate), a longer
// one in a short list.
func isStop(w []byte) bool {
	if len(w) > 8 {
		return slices.Contains(longStop, string(w))
	}
	p := pack(w)
	for i := stopSlot(p); ; i = (i + 1) & (len(learnedStop) - 1) {
		switch learnedStop[i] {
		case p:
			return true
		case 0:
			return false
		}
	}
}

func pack(w []byte) uint64 {
	var p uint64
	for _, c := range w {
		p = p<<8 | uint64(c)
	}
	return p
}

func stopSlot(p uint64) int { return int((p * 0x9E3779B97F4A7C15) >> (64 - 9)) }

var learnedStop, longStop = func() (*[512]uint64, []string) {
	var short [512]uint64
	var long []string
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can did do does doing don down during each
		few for from further had has have having he her here hers herself him himself his how i if in
		into is it its itself just me more most my myself no nor not now of off on once only or other
		our ours ourselves out over own same she should so some such than that the their theirs them
		themselves then there these they this those through to too under until up very was we were
		what when where which while who whom why will with you your yours yourself yourselves would
		could also get got one`) {
		if len(w) > 8 {
			long = append(long, w)
			continue
		}
		p := pack([]byte(w))
		i := stopSlot(p)
		for short[i] != 0 && short[i] != p {
			i = (i + 1) & (len(short) - 1)
		}
		short[i] = p
	}
	return &short, long
}()

// learned scores the hits by the learned order where it applies (weights
// learned above 0, reciprocal-rank fusion of both sides: the fusion the
// model was fit on) and, with q.Explain, gives each hit the features it
// read (kept holds each hit's fused candidate).
func learned(q memory.Query, hits []memory.Hit, kept []Fused) {
	// both sides found candidates: the pools the model was fit on (with
	// one side empty, no word of the query matched, or no vectors are
	// made yet, the fusion passes the other side's own scores through)
	apply := Learned(q) && slices.ContainsFunc(kept, func(f Fused) bool { return f.TextRank > 0 }) &&
		slices.ContainsFunc(kept, func(f Fused) bool { return f.VectorRank > 0 })
	if !apply && !q.Explain || len(hits) == 0 {
		return
	}
	fs := featuresOf(q, hits, kept)
	if q.Explain {
		for i := range hits {
			hits[i].Features = slices.Clone(fs[i][:])
		}
	}
	if apply {
		learnedOrder(hits, fs, q.Weights.OrDefault().Learned)
	}
}

// Learned says whether the learned order ranks q's candidates: reciprocal-
// rank fusion of both sides (the fusion the model was fit on) with
// weights.learned above 0. A store whose server can fuse fuses such a
// query's two sides itself, as the model reads each side's rank and
// score.
func Learned(q memory.Query) bool {
	return q.Fusion == memory.RRF && q.Vector != nil && q.Weights.OrDefault().Learned > 0
}

// learnedOrder scores each hit by the learned model, from its features
// fs[i]: with weight 1 its chance of being evidence, below 1 a blend of
// that and its score, each over the best; the score it had is kept as
// its Prior. A model that cannot be read leaves the scores as they were
// (TestLearnedModelMatchesItsTrainer fails on it, so no build ships one).
func learnedOrder(hits []memory.Hit, fs []features, weight float64) {
	model, err := theModel()
	if err != nil {
		return
	}
	ps := make([]float64, len(hits))
	var best, bestP float64
	for i := range fs {
		ps[i] = model.predict(&fs[i])
		best, bestP = max(best, hits[i].Score), max(bestP, ps[i])
	}
	for i := range hits {
		hits[i].Prior = hits[i].Score
		if weight >= 1 {
			hits[i].Score = ps[i]
			continue
		}
		hits[i].Score = (1-weight)*ratio(hits[i].Score, best) + weight*ratio(ps[i], bestP)
	}
}

// FeatureNames names what the learned order reads of a candidate, in the
// order of Hit.Features.
func FeatureNames() []string { return slices.Clone(featureNames[:]) }

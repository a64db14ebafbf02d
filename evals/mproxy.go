package evals

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// MProxy turns a LongMemEval S dataset into an M-like one by adding n
// filler sessions to every question's haystack, drawn from other
// questions' haystacks and never from evidence sessions (a session any
// question names in answer_session_ids, or whose id starts with answer_).
// A borrowed session gets a date drawn within the haystack's own span, so
// that it is neither in the future of the question nor before its history,
// and the haystack is kept in date order. The draw depends only on seed
// and the question id: the same seed gives the same haystacks whatever
// the order of the file. It is a scale test in the spirit of LongMemEval
// M, to be called "M-proxy", never LME-M.
func MProxy(d *Dataset, n int, seed uint64) error {
	if d.Name != "longmemeval" {
		return fmt.Errorf("M-proxy is built from LongMemEval S, not %s", d.Name)
	}
	var pool []Session
	seen := map[string]bool{}
	for _, u := range d.Units {
		for _, s := range u.Sessions {
			if s.Evidence || strings.HasPrefix(s.ID, "answer_") || seen[s.ID] {
				continue
			}
			seen[s.ID] = true
			pool = append(pool, s)
		}
	}
	slices.SortFunc(pool, func(a, b Session) int { return strings.Compare(a.ID, b.ID) })
	for i := range d.Units {
		u := &d.Units[i]
		have := map[string]bool{}
		for _, s := range u.Sessions {
			have[s.ID] = true
		}
		candidates := where(pool, func(s Session) bool { return !have[s.ID] })
		if len(candidates) < n {
			return fmt.Errorf("M-proxy: %s can borrow only %d sessions, %d asked", u.ID, len(candidates), n)
		}
		h := fnv.New64a()
		h.Write([]byte(u.ID))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		first, last := span(u.Sessions)
		for _, j := range rng.Perm(len(candidates))[:n] {
			s := candidates[j]
			s.Date = first.Add(time.Duration(rng.Int64N(int64(last.Sub(first)) + 1)))
			u.Sessions = append(u.Sessions, s)
		}
		slices.SortStableFunc(u.Sessions, bySessionDate)
	}
	d.Notes = append(d.Notes, fmt.Sprintf("M-proxy: %d filler sessions added per question from other questions' haystacks (never evidence sessions), dated within each haystack's span, seed %d. This is not LongMemEval M.", n, seed))
	return nil
}

// span is the earliest and latest session date.
func span(ss []Session) (time.Time, time.Time) {
	return slices.MinFunc(ss, bySessionDate).Date, slices.MaxFunc(ss, bySessionDate).Date
}

// bySessionDate orders sessions by date.
func bySessionDate(a, b Session) int { return a.Date.Compare(b.Date) }

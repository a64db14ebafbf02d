package evals

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// idmap is an IDMap whose memory ids are "<session>:<n>".
func idmap(refs map[string][]string) IDMap {
	m := IDMap{}
	for id, r := range refs {
		m[id] = Held{Session: id[:strings.LastIndexByte(id, ':')], Refs: r}
	}
	return m
}

func TestScore(t *testing.T) {
	ids := idmap(map[string][]string{"s1:0": {"D1:1"}, "s1:1": {"D1:2"}, "s2:0": {"D2:1"}, "s2:1": {"D2:2"}, "s3:0": {"D3:1"}})
	q := Question{EvidenceTurns: []string{"D1:2", "D2:1"}, EvidenceSessions: []string{"s1", "s2"}}
	for _, tc := range []struct {
		name             string
		recalled         []string
		all, any         bool
		ndcg             float64
		sessAll, sessAny bool
		sessNDCG         float64
	}{
		{"both first", []string{"s1:1", "s2:0", "s3:0"}, true, true, 1, true, true, 1},
		{"one of two", []string{"s3:0", "s1:1"}, false, true, (1 / math.Log2(3)) / (1 + 1/math.Log2(3)), false, true, (1 / math.Log2(3)) / (1 + 1/math.Log2(3))},
		{"none", []string{"s3:0"}, false, false, 0, false, false, 0},
		{"same session, wrong turn", []string{"s1:0", "s2:1"}, false, false, 0, true, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Score(q, tc.recalled, ids)
			if r.Turn.All != tc.all || r.Turn.Any != tc.any || math.Abs(r.Turn.NDCG-tc.ndcg) > 1e-9 {
				t.Errorf("turn %+v, want all=%v any=%v ndcg=%v", *r.Turn, tc.all, tc.any, tc.ndcg)
			}
			if r.Session.All != tc.sessAll || r.Session.Any != tc.sessAny || math.Abs(r.Session.NDCG-tc.sessNDCG) > 1e-9 {
				t.Errorf("session %+v, want all=%v any=%v ndcg=%v", *r.Session, tc.sessAll, tc.sessAny, tc.sessNDCG)
			}
		})
	}
	if r := Score(Question{NoRetrieval: true, EvidenceTurns: []string{"D1:1"}}, []string{"s1:0"}, ids); r.Turn != nil || r.Session != nil {
		t.Error("a question left out of retrieval was scored")
	}
}

func TestScoreCoarseMemories(t *testing.T) {
	// At session granularity one memory holds both evidence turns: the
	// ideal list has one relevant memory, so finding it first is perfect.
	ids := idmap(map[string][]string{"s1:0": {"D1:1", "D1:2"}, "s2:0": {"D2:1"}})
	r := Score(Question{EvidenceTurns: []string{"D1:1", "D1:2"}}, []string{"s1:0", "s2:0"}, ids)
	if !r.Turn.All || r.Turn.NDCG != 1 {
		t.Errorf("%+v", *r.Turn)
	}
}

func TestDist(t *testing.T) {
	d := NewDist([]float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	if d.Mean != 10.5 || d.P50 != 10 || d.P95 != 19 || d.Max != 20 {
		t.Errorf("%+v", d)
	}
}

// AnswerShown checks the gold answer's words in the context shown:
// case, punctuation and a few function words aside, every word must be
// there; an answer without words is not checked.
func TestAnswerShown(t *testing.T) {
	ctx := "[2023-01-20 Fri · session s1 · Jon (user)]\nI lost my job as a banker on 19 January, 2023 — tough week."
	for _, c := range []struct {
		gold string
		want *bool
	}{
		{"19 January, 2023", ptr(true)},
		{"19 january 2023", ptr(true)},
		{"lost his house", ptr(false)},
		{"his job as a banker", ptr(true)},
		{"21 January, 2023", ptr(false)},
		{"20 January", ptr(true)}, // the header's date counts: the model sees it too
		{"Business Administration", ptr(false)},
		{"the", nil},
		{"", nil},
	} {
		got := AnswerShown(c.gold, ctx)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("AnswerShown(%q): %v, want %v", c.gold, fmtBool(got), fmtBool(c.want))
		}
	}
}

func ptr(b bool) *bool { return &b }

func fmtBool(b *bool) string {
	if b == nil {
		return "nil"
	}
	return strconv.FormatBool(*b)
}

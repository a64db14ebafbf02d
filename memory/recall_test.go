package memory_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
)

// Excerpts fill the space they save with more memories, but the best k
// stay the best k: the candidates for filling come from the same pool, so
// the ranking of the first k is the one a recall without excerpts gives.
func TestExcerptFillKeepsTheBestK(t *testing.T) {
	// a vector side that disagrees with the text side: the embedder takes
	// many words for one, so the two rankings differ below their tops
	words := strings.Fields("trip lake house Maine August boat rain cabin fishing dock pine canoe storm coffee map " +
		"river tent fire trail bridge summit valley garden market train ticket museum castle harbour island")
	syn := map[string]string{}
	for i, w := range words {
		syn[strings.ToLower(w)] = strings.ToLower(words[(i*5)%7])
	}
	svc := open(t, &fake.Embedder{Name: "fill", Synonyms: syn})
	rng := rand.New(rand.NewPCG(1, 2))
	req := memory.RememberRequest{Namespace: "n", SessionID: "s", SessionDate: "2023-05-01"}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "Note %d:", i)
		for j := 0; j < 3+rng.IntN(40); j++ { // from a few words to long turns
			b.WriteString(" " + words[rng.IntN(len(words))])
		}
		req.Messages = append(req.Messages, memory.Message{Role: "user", Content: b.String()})
	}
	if _, err := svc.Remember(bg, req); err != nil {
		t.Fatal(err)
	}
	for _, query := range []string{"lake house trip in August", "canoe on the dock in the storm", "pine cabin coffee"} {
		for _, k := range []int{5, 10} {
			whole, err := svc.Recall(bg, memory.RecallRequest{Query: query, Namespace: "n", K: k})
			if err != nil {
				t.Fatal(err)
			}
			filled, err := svc.Recall(bg, memory.RecallRequest{Query: query, Namespace: "n", K: k, Excerpt: 8, Fill: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(filled.Hits) < len(whole.Hits) {
				t.Fatalf("%q k=%d: fill returned %d hits, fewer than the %d without excerpts", query, k, len(filled.Hits), len(whole.Hits))
			}
			for i, h := range whole.Hits {
				if filled.Hits[i].Memory.ID != h.Memory.ID {
					t.Errorf("%q k=%d: hit %d is %s with excerpts and fill, %s without", query, k, i, filled.Hits[i].Memory.ID, h.Memory.ID)
					break
				}
			}
		}
	}
}

// weights.adjacent is a fraction of a neighbour's score: above 1 (or NaN)
// it is refused, naming the field and its limit; 1 is accepted.
func TestAdjacentWeightBounds(t *testing.T) {
	svc := open(t, nil)
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: "s", SessionDate: "2023-05-01",
		Messages: []memory.Message{{Role: "user", Content: "How did the race go?"}, {Role: "user", Content: "Amazing, I finished second."}}}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []float64{1.5, math.NaN()} {
		_, err := svc.Recall(bg, memory.RecallRequest{Query: "race", Namespace: "n", K: 5, Weights: &memory.Weights{Adjacent: w}})
		var fe *memory.FieldError
		if !errors.As(err, &fe) || fe.Field != "weights.adjacent" || !strings.Contains(fe.Msg, "between 0 and 1") {
			t.Errorf("adjacent %v: %v, want a field error naming weights.adjacent and its limit", w, err)
		}
	}
	if _, err := svc.Recall(bg, memory.RecallRequest{Query: "race", Namespace: "n", K: 5, Weights: &memory.Weights{Adjacent: 1}}); err != nil {
		t.Errorf("adjacent 1: %v", err)
	}
}

// With context, each hit comes with its neighbouring turns in its
// session's one passage: turns in order, hits marked, a gap line where
// turns between two of them are left out, none where the contexts touch.
func TestContextJoinsTheSessionPassage(t *testing.T) {
	svc := open(t, nil)
	req := memory.RememberRequest{Namespace: "n", SessionID: "s", SessionDate: "2023-05-01"}
	for i := range 10 {
		text := fmt.Sprintf("Small talk number %d.", i)
		switch i {
		case 2:
			text = "We booked the kayak trip."
		case 6:
			text = "The kayak trip was cancelled by rain."
		}
		req.Messages = append(req.Messages, memory.Message{Role: "user", Content: text})
	}
	if _, err := svc.Remember(bg, req); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		context int
		turns   []int
		gap     bool
	}{{1, []int{1, 2, 3, 5, 6, 7}, true}, {2, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}, false}} {
		res, err := svc.Recall(bg, memory.RecallRequest{Query: "kayak trip", Namespace: "n", K: 2, Context: c.context, Fusion: memory.TextOnly})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Passages) != 1 {
			t.Fatalf("context %d: %d passages, want one for the session", c.context, len(res.Passages))
		}
		p := res.Passages[0]
		var turns []int
		for i, m := range p.Memories {
			turns = append(turns, m.Turn)
			if hit := m.Turn == 2 || m.Turn == 6; p.Hit[i] != hit {
				t.Errorf("context %d: turn %d hit=%v", c.context, m.Turn, p.Hit[i])
			}
		}
		if !slices.Equal(turns, c.turns) {
			t.Errorf("context %d: turns %v, want %v", c.context, turns, c.turns)
		}
		if text := res.Text(); strings.Contains(text, "\n…\n") != c.gap {
			t.Errorf("context %d: gap line %v, want %v:\n%s", c.context, !c.gap, c.gap, text)
		}
	}
}

// A session resumed days later (Claude Code's --resume): a turn whose own
// timestamp falls on a later day is stored under that day. Its header
// shows that day, "yesterday" in it is the day before it, and a recall
// from a date after the session's start finds it. Days are the server
// zone's: 01:30Z on 3 December is the evening of 2 December in Los
// Angeles, and a session dated 01:30Z on 21 November took place on the
// 20th.
func TestResumedSessionTurnsKeepTheirDay(t *testing.T) {
	svc, _ := inLosAngeles(t)
	first := []memory.Message{msg("Starting on the invoice export.", "2026-11-21T01:30:00Z")}
	resumed := append(first, msg("Back on this after a break: yesterday I finally fixed the invoice rounding bug.", "2026-12-03T01:30:00Z"))
	for _, ms := range [][]memory.Message{first, resumed} { // as the Stop hook sends a growing transcript
		if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", SessionDate: "2026-11-21T01:30:00Z", Messages: ms}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "invoice rounding bug", K: 10, After: "2026-12-01", Fusion: memory.TextOnly})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].Memory.Turn != 1 {
		t.Fatalf("recall after 1 December: %+v, want the resumed turn", res.Hits)
	}
	text := res.Text()
	for _, want := range []string{"[2026-12-02 Wed · session s", "yesterday [2026-12-01]"} {
		if !strings.Contains(text, want) {
			t.Errorf("recall shows\n%s\nwant %q in it", text, want)
		}
	}
	start, err := svc.Recall(bg, memory.RecallRequest{Query: "invoice export", K: 1, Fusion: memory.TextOnly})
	if err != nil {
		t.Fatal(err)
	}
	if text := start.Text(); !strings.Contains(text, "[2026-11-20 Fri · session s") {
		t.Errorf("the session's first turn shows\n%s\nwant its day in Los Angeles, 2026-11-20", text)
	}
}

// remember says the date the turns it stored carry: a session_date given
// before the session's last turn's day is not theirs (a session's days
// never go back), and the result used to report it anyway.
func TestRememberSaysTheDateItStored(t *testing.T) {
	svc := open(t, nil)
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "k1", SessionDate: "2023-08-01", Messages: []memory.Message{{Role: "user", Content: "The boat is blue."}}}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Remember(bg, memory.RememberRequest{SessionID: "k1", SessionDate: "2023-06-01", Messages: []memory.Message{{Role: "user", Content: "The sail is red."}}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := svc.Session(bg, "", "k1")
	if err != nil || len(ms) != 2 {
		t.Fatalf("session k1: %v, %d turns", err, len(ms))
	}
	stored := ms[1].SessionDate.Format(time.DateOnly)
	if stored != "2023-08-01" || res.SessionDate.Format(time.DateOnly) != stored {
		t.Errorf("remember said %s; the turn is stored under %s (want 2023-08-01 for both)", res.SessionDate.Format(time.DateOnly), stored)
	}
	// the same call sent again stores nothing, and says the same date
	again, err := svc.Remember(bg, memory.RememberRequest{SessionID: "k1", SessionDate: "2023-06-01", Messages: []memory.Message{{Role: "user", Content: "The sail is red."}}})
	if err != nil || again.Stored != 0 || again.SessionDate.Format(time.DateOnly) != stored {
		t.Errorf("the resend: stored %d, said %s (%v); want 0 and %s", again.Stored, again.SessionDate.Format(time.DateOnly), err, stored)
	}
}

// How remember dates the turns of a session (turnDate, local): an explicit
// offset other than UTC is kept (Tokyo's 22 November stays the 22nd, not
// the 21st in Los Angeles); "+00:00" is read as "Z" is; a turn without a
// timestamp after one said later takes the later day, so a session's days
// never go back; and a session stored with its date in UTC (before UTC
// dates were read in the server's zone) keeps it when the same instant is
// sent again, so its later turns are not dated the day before.
func TestTurnDates(t *testing.T) {
	svc, st := inLosAngeles(t)
	remember := func(session, date string, ms ...memory.Message) {
		t.Helper()
		if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: session, SessionDate: date, Messages: ms}); err != nil {
			t.Fatal(err)
		}
	}
	days := func(session string) []string {
		t.Helper()
		tr, err := svc.Session(bg, "", session)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range tr {
			out = append(out, m.SessionDate.Format("2006-01-02"))
		}
		return out
	}
	remember("tokyo", "2026-11-21T07:00:00+09:00", msg("Landed in Tokyo.", "2026-11-21T07:00:00+09:00"), msg("Yesterday at the ryokan we had the best onsen.", "2026-11-22T07:00:00+09:00"))
	remember("utc", "2026-11-21T01:30:00+00:00", msg("A UTC time written as an offset.", "2026-11-21T01:30:00+00:00"))
	remember("gap", "2026-11-20", msg("Day one.", "2026-11-20T10:00:00-08:00"), msg("Day thirteen.", "2026-12-02T10:00:00-08:00"), msg("No time given.", ""), msg("An earlier time.", "2026-11-25T10:00:00-08:00"))
	if err := st.Put(bg, []memory.Memory{{ID: "old:0", Namespace: memory.DefaultNamespace, SessionID: "old", Turn: 0, Role: "user", Text: "Stored before.",
		SessionDate: time.Date(2026, 11, 21, 1, 30, 0, 0, time.UTC), Hash: "h0", Created: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	remember("old", "2026-11-21T01:30:00Z", msg("Half an hour later.", "2026-11-21T02:00:00Z"))
	for session, want := range map[string][]string{
		"tokyo": {"2026-11-21", "2026-11-22"},
		"utc":   {"2026-11-20"},
		"gap":   {"2026-11-20", "2026-12-02", "2026-12-02", "2026-12-02"},
		"old":   {"2026-11-21", "2026-11-21"},
	} {
		if got := days(session); !slices.Equal(got, want) {
			t.Errorf("session %s: turns dated %v, want %v", session, got, want)
		}
	}
}

// inLosAngeles is a service whose zone is Los Angeles, on 5 December 2026,
// over a new embedded store.
func inLosAngeles(t *testing.T) (*memory.Service, *embedded.Store) {
	t.Helper()
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Location: la, Now: func() time.Time { return time.Date(2026, 12, 5, 12, 0, 0, 0, la) }})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

// msg is a user's message with a timestamp ("" for none).
func msg(text, ts string) memory.Message {
	return memory.Message{Role: "user", Content: text, Timestamp: ts}
}

// A session sent without an id is named by its day in the server's zone,
// the day it is dated: one instant written in UTC and in Los Angeles's
// offset is one session, and the same words said the next day another.
func TestDerivedSessionIDsByLocalDay(t *testing.T) {
	svc, _ := inLosAngeles(t)
	var ids []string
	for _, date := range []string{"2023-05-10T01:30:00Z", "2023-05-09T18:30:00-07:00", "2023-05-10T20:00:00Z"} {
		res, err := svc.Remember(bg, memory.RememberRequest{SessionDate: date, Messages: []memory.Message{msg("We adopted a cat named Miso.", "")}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.SessionID)
	}
	if ids[0] != ids[1] || ids[2] == ids[0] {
		t.Errorf("session ids %v: want the first two alike (one instant, 9 May in Los Angeles) and the third (10 May) apart", ids)
	}
}

// "Two weeks ago" is about two weeks: said on Wednesday 1 February, it
// weighs a memory of Sunday 15 January, 17 days back, which the ISO week
// of exactly two weeks ago (16 to 22 January) leaves out.
func TestAPeriodCountedFromNowIsAbout(t *testing.T) {
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2023, 2, 1, 8, 41, 0, 0, time.UTC)
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ date, text string }{
		{"2023-01-08", "I saw the Egypt exhibit at the museum."},
		{"2023-01-15", "I saw the Rome exhibit at the museum with a friend."},
		{"2023-01-28", "I saw the Maya exhibit at the museum."},
	} {
		req := memory.RememberRequest{Namespace: "n", SessionID: "s" + m.date, SessionDate: m.date,
			Messages: []memory.Message{{Role: "user", Content: m.text}}}
		if _, err := svc.Remember(bg, req); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "Which exhibit did I see at the museum two weeks ago?", Namespace: "n", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Memory.Text, "Rome") {
		t.Errorf("hits %v, want the Rome exhibit of 15 January", res.Hits)
	}
	if len(res.Periods) != 1 || res.Periods[0].From.Format(time.DateOnly) != "2023-01-15" || res.Periods[0].To.Format(time.DateOnly) != "2023-01-23" {
		t.Errorf("periods %+v, want 15 to 22 January", res.Periods)
	}
}

// A question that names a period and nothing else is answered by a
// digest of the period's sessions: each session's turn of most content
// first, none of another period, and no reply of no content before it.
func TestAQuestionOfAPeriodAloneIsADigest(t *testing.T) {
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC) // a Thursday
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		id, date string
		turns    []string
	}{
		{"billing", "2026-11-10", []string{"Move the billing service to the new queue and drop the nightly cron job.", "Done. Anything else?", "No, thanks."}},
		{"websocket", "2026-11-12", []string{"The websocket test flakes on CI; quarantine it until the fix lands.", "Done. Anything else?"}},
		{"login", "2026-11-03", []string{"The login page needs a show-password toggle.", "Done. Anything else?"}},
		{"release", "2026-11-18", []string{"Draft the release notes for version 2.4.", "Done. Anything else?", "We deploy version 2.4 next Tuesday."}},
	} {
		req := memory.RememberRequest{Namespace: "n", SessionID: s.id, SessionDate: s.date}
		for i, text := range s.turns {
			req.Messages = append(req.Messages, memory.Message{Role: []string{"user", "assistant"}[i%2], Content: text})
		}
		if _, err := svc.Remember(bg, req); err != nil {
			t.Fatal(err)
		}
	}
	// a session begun before last week and resumed after it: none of its
	// turns is of last week
	for _, m := range []memory.Message{{Role: "user", Content: "Plan the Q1 roadmap.", Timestamp: "2026-11-02T10:00:00Z"}, {Role: "user", Content: "Roadmap approved.", Timestamp: "2026-11-17T10:00:00Z"}} {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: "roadmap", SessionDate: "2026-11-02", Messages: []memory.Message{m}}); err != nil {
			t.Fatal(err)
		}
	}
	recall := func(q string, exclude string) memory.RecallResult {
		t.Helper()
		res, err := svc.Recall(bg, memory.RecallRequest{Query: q, Namespace: "n", K: 2, Fill: true, Excerpt: memory.DefaultExcerpt, ExcludeSession: exclude})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := recall("What did we work on last week?", "")
	if !res.Digest {
		t.Fatal("a question of last week alone is not a digest")
	}
	var sessions []string
	for _, p := range res.Passages {
		sessions = append(sessions, p.Memories[0].SessionID)
		best := 0
		for i := range p.Memories {
			if p.Score[i] > p.Score[best] {
				best = i
			}
		}
		if text := p.Memories[best].Text; strings.HasPrefix(text, "Done") || strings.HasPrefix(text, "No,") {
			t.Errorf("session %s's first turn is %q, want the one that says what was done", p.Memories[0].SessionID, text)
		}
	}
	if !slices.Equal(sessions, []string{"billing", "websocket"}) {
		t.Errorf("sessions %v, want last week's two, oldest first", sessions)
	}
	if note := res.DigestNote(); note != `A digest of the sessions of "last week" (2026-11-09 to 2026-11-15): both, each by its turns of most content.` {
		t.Errorf("note %q", note)
	}
	res = recall("What did we work on last week?", "billing")
	if len(res.Passages) != 1 || res.Passages[0].Memories[0].SessionID != "websocket" {
		t.Errorf("with billing excluded: %v, want the websocket session alone", res.Passages)
	}
	if res := recall("What did we decide about the login page?", ""); res.Digest {
		t.Error("a question with a topic and no period is a digest")
	}
	if res := recall("What did we decide about billing last week?", ""); res.Digest {
		t.Error("a question with a topic and a period is a digest")
	}
	// no session is dated next week: a search finds what mentions it
	res = recall("What is happening next week?", "")
	if res.Digest || len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Memory.Text, "next Tuesday") {
		t.Errorf("next week: digest %v, hits %v; want a search, the deploy of next Tuesday first", res.Digest, res.Hits)
	}
}

// A digest reads each period apart (not the span between two), and finds
// a long session's turns of the period past its first window.
func TestADigestOfPeriodsApartAndOfALongSession(t *testing.T) {
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	remember := func(session, date string, texts ...string) {
		t.Helper()
		req := memory.RememberRequest{Namespace: "n", SessionID: session, SessionDate: "2026-01-01"}
		for _, text := range texts {
			req.Messages = append(req.Messages, memory.Message{Role: "user", Content: text, Timestamp: date})
		}
		if _, err := svc.Remember(bg, req); err != nil {
			t.Fatal(err)
		}
	}
	remember("jan", "2026-01-10T10:00:00Z", "We set up the billing service.")
	remember("mar", "2026-03-10T10:00:00Z", "We moved the docs to a wiki.")
	remember("oct", "2026-10-10T10:00:00Z", "We shipped version 2.0.")
	var early []string
	for i := range 300 {
		early = append(early, fmt.Sprintf("Note %d about the old parser.", i))
	}
	for i := 0; i < len(early); i += 100 {
		remember("long", "2026-11-01T10:00:00Z", early[i:i+100]...)
	}
	remember("long", "2026-11-18T10:00:00Z", "Yesterday's real work: we rewrote the tokenizer of the parser.")
	recall := func(q string) memory.RecallResult {
		t.Helper()
		res, err := svc.Recall(bg, memory.RecallRequest{Query: q, Namespace: "n", K: 10, Fill: true, Excerpt: memory.DefaultExcerpt})
		if err != nil || !res.Digest {
			t.Fatalf("%q: digest %v, %v", q, res.Digest, err)
		}
		return res
	}
	res := recall("What did we do in January and in October?")
	var sessions []string
	for _, p := range res.Passages {
		sessions = append(sessions, p.Memories[0].SessionID)
	}
	if !slices.Equal(sessions, []string{"jan", "oct"}) || res.Sessions != 2 {
		t.Errorf("January and October: sessions %v of %d, want jan and oct of 2", sessions, res.Sessions)
	}
	res = recall("What did we do yesterday?")
	if len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Memory.Text, "tokenizer") || res.Sessions != 1 {
		t.Errorf("yesterday: %v of %d sessions, want the long session's turn 300", res.Hits, res.Sessions)
	}
}

// A recall of k above DefaultK (a large history's) fills, past its best
// 1.5k candidates, with the sessions it has not shown before more turns
// of the ones it has, unless those are several times as likely: one long
// session whose turns all match a little better no longer takes the
// whole budget from the sessions that match a little less ("near"), and
// one whose turns match far better keeps it ("far"). The premises, read
// from the learned order's chances, are checked first.
func TestALargeKFillsWithOtherSessions(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "breadth"})
	count := strings.Repeat("The counts went on all morning along the dunes, the salt lakes and the settlement, tallied by hand in the field books. ", 6)
	walk := strings.Repeat("We walked the coast path past the lighthouse, had lunch at the bakery and swam at the bay before the boat home. ", 6)
	history := func(ns, small string) {
		big := memory.RememberRequest{Namespace: ns, SessionID: "big", SessionDate: "2023-05-01"}
		for i := range 30 {
			big.Messages = append(big.Messages, memory.Message{Role: "user",
				Content: fmt.Sprintf("Quokka quokka quokka, note %d on the quokka colony of Rottnest and its quokka census. ", i) + count})
		}
		if _, err := svc.Remember(bg, big); err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			_, err := svc.Remember(bg, memory.RememberRequest{Namespace: ns, SessionID: fmt.Sprintf("small%02d", i), SessionDate: "2023-05-02",
				Messages: []memory.Message{{Role: "user", Content: fmt.Sprintf(small, i) + walk}}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	history("near", "Quokka quokka quokka, trip %d to the quokka colony. ")
	history("far", "On trip %d we saw a quokka near the ferry. ")
	recall := func(ns string, k int) (others int, ratio float64, chances string) {
		res, err := svc.Recall(bg, memory.RecallRequest{Query: "quokka", Namespace: ns, K: k, Excerpt: 100, Fill: true, Budget: memory.ByK, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Passages {
			if p.Memories[0].SessionID != "big" {
				others++
			}
		}
		weakestBig, bestSmall := 1.0, 0.0
		for _, c := range res.Candidates {
			if c.Memory.SessionID == "big" {
				weakestBig = min(weakestBig, c.Score)
			} else {
				bestSmall = max(bestSmall, c.Score)
			}
			chances += fmt.Sprintf(" %s %.4f", c.Memory.ID, c.Score)
		}
		return others, bestSmall / weakestBig, chances
	}
	for _, c := range []struct {
		ns       string
		near     bool
		atLargeK bool // other sessions shown at k 12
	}{{"near", true, true}, {"far", false, false}} {
		n, ratio, chances := recall(c.ns, memory.DefaultK)
		if n != 0 || ratio >= 1 || (ratio >= memory.SessionShownWeight) != c.near {
			t.Fatalf("%s: the premise fails (every turn of the big session likelier than any other session's, by less than 1/%g near, more far; none other shown at k %d): the best other is %.2f of the big session's weakest, %d shown:%s",
				c.ns, memory.SessionShownWeight, memory.DefaultK, ratio, n, chances)
		}
		if n, _, chances := recall(c.ns, 12); (n > 0) != c.atLargeK {
			t.Errorf("%s, k 12: %d other sessions shown, want them shown: %v:%s", c.ns, n, c.atLargeK, chances)
		}
	}
}

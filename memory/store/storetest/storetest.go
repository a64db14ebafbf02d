// Package storetest is the conformance suite of memory.Store, in the manner
// of testing/fstest: one suite that every store implementation runs, so the
// embedded store and the Couchbase store are held to the same contract by
// the same tests. The embedded store runs it always; the Couchbase store
// runs its key-value cases (RunKeyValue) on gocaves always, and all of it
// when a cluster is configured (AGENTMEM_TEST_COUCHBASE).
package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
)

// Open opens the store under test for an embedder (embedderID "" and dims
// 0 for none); anyEmbedder skips the check that the store was built with
// that embedder, as a reindex must. Every call opens the same storage, so
// closing the store and opening it again is a restart.
type Open func(embedderID string, dims int, anyEmbedder bool) (memory.Store, error)

// Run runs the suite. newStorage returns an Open over fresh, empty storage
// (a temporary directory, a new collection), which it cleans up with t.
func Run(t *testing.T, newStorage func(t *testing.T) Open) {
	run(t, newStorage)
}

// RunKeyValue runs the cases that need no search, on a store whose search
// service cannot run (the Couchbase store on gocaves, a mock cluster whose
// Search service answers only a ping): remembering, resending and
// appending, all-or-nothing writes, sessions in order, listing, export,
// the marks of forgotten turns and their move, the embedder's check and
// reindex. Where such a case checks with a recall
// that nothing was stored, it reads by key instead.
func RunKeyValue(t *testing.T, newStorage func(t *testing.T) Open) {
	s := &suite{open: newStorage(t), keyValue: true}
	s.start(t)
	t.Run("IdempotentAndAppend", s.idempotentAndAppend)
	t.Run("RepeatedTurns", s.repeatedTurns)
	t.Run("AllOrNothing", s.allOrNothing)
	t.Run("PutAllOrNothing", s.putAllOrNothing)
	t.Run("SessionInOrder", s.sessionInOrder)
	t.Run("SessionIDs", s.sessionIDs)
	t.Run("ForgottenStayForgotten", s.forgottenStayForgotten)
	t.Run("MarksMove", func(t *testing.T) { marksMove(t, newStorage(t), newStorage(t)) })
	t.Run("EmbedderMismatchAndReindex", func(t *testing.T) { embedderMismatchAndReindex(t, newStorage(t), true) })
	t.Run("ListAndExport", func(t *testing.T) { listAndExport(t, newStorage(t)) })
}

// start opens the suite's store and service.
func (s *suite) start(t *testing.T) {
	emb := &fake.Embedder{Name: "storetest", Synonyms: map[string]string{"instrument": "violin", "kid": "daughter", "studying": "learning"}}
	st, err := s.open(emb.ID(), emb.Dims(), false)
	if err != nil {
		t.Fatal(err)
	}
	s.emb, s.st = emb, st
	s.svc = s.service(t, st, emb)
	t.Cleanup(func() { s.st.Close() })
}

func run(t *testing.T, newStorage func(t *testing.T) Open) {
	s := &suite{open: newStorage(t)}
	s.start(t)

	t.Run("RecallLexical", s.recallLexical)
	t.Run("IdempotentAndAppend", s.idempotentAndAppend)
	t.Run("RepeatedTurns", s.repeatedTurns)
	t.Run("AllOrNothing", s.allOrNothing)
	t.Run("PutAllOrNothing", s.putAllOrNothing)
	t.Run("NamespacesIsolated", s.namespacesIsolated)
	t.Run("VectorFindsParaphrase", s.vectorFindsParaphrase)
	t.Run("BestWindow", s.bestWindow)
	t.Run("FusedPool", s.fusedPool)
	t.Run("PeriodSearchedDeeper", s.periodSearchedDeeper)
	t.Run("FiltersAndOrder", s.filtersAndOrder)
	t.Run("FiltersDoNotScore", s.filtersDoNotScore)
	t.Run("SessionInOrder", s.sessionInOrder)
	t.Run("SessionIDs", s.sessionIDs)
	t.Run("RePutReplaces", s.rePutReplaces)
	t.Run("SearchSeesLastWrite", s.searchSeesLastWrite)
	t.Run("SpeakerInVector", s.speakerInVector)
	t.Run("NamesMatchAsEntities", s.namesMatchAsEntities)
	t.Run("KindsMatch", s.kindsMatch)
	t.Run("FormsMatch", s.formsMatch)
	t.Run("ForgetManySessions", s.forgetManySessions)
	t.Run("RestartAndForget", s.restartAndForget)
	t.Run("ForgottenStayForgotten", s.forgottenStayForgotten)
	t.Run("MarksMove", func(t *testing.T) { marksMove(t, newStorage(t), newStorage(t)) })
	t.Run("EmbedderMismatchAndReindex", func(t *testing.T) { embedderMismatchAndReindex(t, newStorage(t), false) })
	t.Run("ListAndExport", func(t *testing.T) { listAndExport(t, newStorage(t)) })
}

type suite struct {
	open     Open
	keyValue bool // no search: RunKeyValue
	emb      *fake.Embedder
	st       memory.Store
	svc      *memory.Service
}

var ctx = context.Background()

// clock is the suite's "now": every default date is this day.
var clock = time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)

func (s *suite) service(t *testing.T, st memory.Store, e memory.Embedder) *memory.Service {
	t.Helper()
	svc, err := memory.New(memory.Options{Store: st, Embedder: e, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func msgs(texts ...string) []memory.Message {
	out := make([]memory.Message, len(texts))
	for i, t := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		out[i] = memory.Message{Role: role, Content: t}
	}
	return out
}

func remember(t *testing.T, svc *memory.Service, ns, session, date string, texts ...string) memory.RememberResult {
	t.Helper()
	res, err := svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: session, SessionDate: date, Messages: msgs(texts...)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func recallIDs(t *testing.T, svc *memory.Service, req memory.RecallRequest) []string {
	t.Helper()
	req.K = cmp.Or(req.K, memory.DefaultK)
	res, err := svc.Recall(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return ids(res.Hits)
}

func ids(hits []memory.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Memory.ID
	}
	return out
}

func (s *suite) recallLexical(t *testing.T) {
	ns := "lexical"
	remember(t, s.svc, ns, "s-may", "1:56 pm on 8 May, 2023",
		"I went to the Nordstrom friends and family sale yesterday.",
		"Nice! Did you find anything?",
		"A pair of boots for my hiking trip.")
	remember(t, s.svc, ns, "s-june", "2023-06-01",
		"My daughter started learning the violin at school.",
		"That is wonderful.")
	got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "When did I go to the Nordstrom sale?", K: 3, Fusion: memory.TextOnly})
	if len(got) == 0 || got[0] != "s-may:0" {
		t.Fatalf("recall = %v, want s-may:0 first", got)
	}
	res, err := s.svc.Recall(ctx, memory.RecallRequest{Namespace: ns, Query: "Nordstrom", K: 1})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("recall: %v %v", res, err)
	}
	m := res.Hits[0].Memory
	if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); !m.SessionDate.Equal(want) {
		t.Errorf("session date = %v, want %v", m.SessionDate, want)
	}
	if !strings.HasPrefix(m.Header(), "[2023-05-08 Mon · session s-may · user]") {
		t.Errorf("header = %q", m.Header())
	}
	if m.Vectors != nil {
		t.Error("a recalled memory carries its vectors")
	}
}

func (s *suite) idempotentAndAppend(t *testing.T) {
	ns := "append"
	first := remember(t, s.svc, ns, "s1", "2023-05-07", "one", "two", "three")
	if first.Stored != 3 || !slices.Equal(first.IDs, []string{"s1:0", "s1:1", "s1:2"}) {
		t.Fatalf("first = %+v", first)
	}
	again := remember(t, s.svc, ns, "s1", "2023-05-07", "one", "two", "three")
	if again.Stored != 0 || again.Skipped != 3 || !slices.Equal(again.IDs, first.IDs) {
		t.Fatalf("resend = %+v, want nothing stored and the same ids", again)
	}
	// the whole session plus a new turn: only the new one is stored
	more := remember(t, s.svc, ns, "s1", "", "one", "two", "three", "four")
	if more.Stored != 1 || more.IDs[3] != "s1:3" {
		t.Fatalf("extended resend = %+v, want one new turn s1:3", more)
	}
	// only the new turns, in a later call; no date means the session's own
	tail := remember(t, s.svc, ns, "s1", "", "five", "six")
	if tail.Stored != 2 || tail.IDs[1] != "s1:5" {
		t.Fatalf("append = %+v", tail)
	}
	ms, err := s.st.Session(ctx, ns, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range ms {
		texts = append(texts, m.Text)
		if m.SessionDate.Format("2006-01-02") != "2023-05-07" {
			t.Errorf("turn %d dated %v, want the session's date", m.Turn, m.SessionDate)
		}
	}
	if got := strings.Join(texts, " "); got != "one two three four five six" {
		t.Fatalf("session = %q", got)
	}
	// No session id: derived from content and day, so a resend is still
	// stored once, and the same words on another day are another session.
	a := remember(t, s.svc, ns, "", "2023-05-08", "hello there", "hi")
	b := remember(t, s.svc, ns, "", "2023-05-08", "hello there", "hi")
	if a.SessionID != b.SessionID || b.Stored != 0 {
		t.Fatalf("derived ids %q/%q, second stored %d", a.SessionID, b.SessionID, b.Stored)
	}
	c := remember(t, s.svc, ns, "", "2023-05-09", "hello there", "hi")
	if c.SessionID == a.SessionID || c.Stored != 2 {
		t.Fatalf("the same words on another day: %+v, want a new session of 2 turns", c)
	}
}

// A turn that repeats an earlier one of its session is a new turn: four
// calls of one turn each keep both consents.
func (s *suite) repeatedTurns(t *testing.T) {
	ns := "repeat"
	for _, m := range []memory.Message{
		{Role: "user", Content: "yes"}, {Role: "assistant", Content: "Deleting file A now."},
		{Role: "user", Content: "yes"}, {Role: "assistant", Content: "Deleting file B now."},
	} {
		if _, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "s", Messages: []memory.Message{m}}); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := s.st.Session(ctx, ns, "s")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range ms {
		texts = append(texts, m.Text)
	}
	if got := strings.Join(texts, " | "); got != "yes | Deleting file A now. | yes | Deleting file B now." {
		t.Errorf("session = %q", got)
	}
	// with client ids, a repeated text with a new id is new, a known id a resend
	keyed := []memory.Message{{Role: "user", Content: "ok", Key: "m1"}, {Role: "user", Content: "ok", Key: "m2"}}
	r1, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "k", Messages: keyed})
	if err != nil || r1.Stored != 2 {
		t.Fatalf("keyed = %+v, %v", r1, err)
	}
	r2, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "k", Messages: keyed[1:]})
	if err != nil || r2.Stored != 0 || r2.IDs[0] != "k:1" {
		t.Fatalf("keyed resend = %+v, %v", r2, err)
	}
}

func (s *suite) allOrNothing(t *testing.T) {
	ns := "allornothing"
	bad := []memory.Message{
		{Role: "user", Content: "fine"},
		{Role: "user", Content: strings.Repeat("x", memory.MaxContentChars+1)},
	}
	_, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "s", Messages: bad})
	var fe *memory.FieldError
	if !errors.As(err, &fe) || fe.Field != "messages[1].content" || !strings.Contains(err.Error(), fmt.Sprint(memory.MaxContentChars)) {
		t.Fatalf("err = %v, want a field error on messages[1].content naming the limit", err)
	}
	cases := []struct {
		req   memory.RememberRequest
		field string
	}{
		{memory.RememberRequest{Namespace: ns}, "messages"},
		{memory.RememberRequest{Namespace: ns, Messages: []memory.Message{{Role: "robot", Content: "x"}}}, "messages[0].role"},
		{memory.RememberRequest{Namespace: ns, Messages: []memory.Message{{Role: "user", Content: " "}}}, "messages[0].content"},
		{memory.RememberRequest{Namespace: ns, Messages: msgs("x"), SessionDate: "not a date at all"}, "session_date"},
		{memory.RememberRequest{Namespace: ns, Messages: []memory.Message{{Role: "user", Content: "x", Timestamp: "whenever"}}}, "messages[0].timestamp"},
		{memory.RememberRequest{Messages: msgs("x"), Namespace: "bad ns!"}, "namespace"},
		{memory.RememberRequest{Namespace: ns, Messages: msgs("x"), SessionID: strings.Repeat("s", 300)}, "session_id"},
		{memory.RememberRequest{Namespace: ns, Messages: []memory.Message{{Role: "user", Content: "a", Key: "k"}, {Role: "user", Content: "b", Key: "k"}}}, "messages[1].id"},
	}
	for _, c := range cases {
		_, err := s.svc.Remember(ctx, c.req)
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: err = %v, want field %s", c.req, err, c.field)
		}
	}
	if s.keyValue {
		if nss, err := s.st.Namespaces(ctx); err != nil || slices.ContainsFunc(nss, func(n memory.NamespaceInfo) bool { return n.Name == ns }) {
			t.Fatalf("a rejected call stored something: namespaces %v, %v", nss, err)
		}
		return
	}
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "fine"}); len(got) != 0 {
		t.Fatalf("a rejected call stored %v", got)
	}
}

// A Put that fails stores none of its memories.
func (s *suite) putAllOrNothing(t *testing.T) {
	ns := "putfail"
	var batch []memory.Memory
	for i := range 21 {
		batch = append(batch, s.memory(ns, "s-new", i, "a good memory", []float32{1}))
	}
	batch[20].Vectors = [][]float32{{1, 0}} // wrong dimensions
	if err := s.st.Put(ctx, batch); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("Put with a wrong-sized vector: %v, want an error naming the dimensions", err)
	}
	batch[20].Vectors = [][]float32{nanVector(s.emb.Dims())}
	if err := s.st.Put(ctx, batch); err == nil {
		t.Error("Put stored a NaN vector")
	}
	got, err := s.st.Session(ctx, ns, "s-new")
	if err != nil || len(got) != 0 {
		t.Errorf("a failed Put left %d memories (%v)", len(got), err)
	}
	if s.keyValue {
		return
	}
	if hits := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "good memory", Fusion: memory.TextOnly}); len(hits) != 0 {
		t.Errorf("a failed Put is searchable: %v", hits)
	}
}

func nanVector(dims int) []float32 {
	v := make([]float32, dims)
	v[0] = float32(math.NaN())
	return v
}

// memory is a memory of turn n of session, with one window whose leading
// components are lead (unit length), embedded by the suite's embedder.
func (s *suite) memory(ns, session string, n int, text string, lead []float32) memory.Memory {
	return memory.Memory{
		ID: memory.MemoryID(session, n), Namespace: ns, SessionID: session, SessionDate: clock, Turn: n,
		Role: "user", Text: text, Hash: fmt.Sprintf("h%d", n), Embedder: s.emb.ID(), Created: clock,
		Vectors: [][]float32{s.unit(lead)},
	}
}

func (s *suite) unit(lead []float32) []float32 {
	v := make([]float32, s.emb.Dims())
	copy(v, lead)
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

func (s *suite) namespacesIsolated(t *testing.T) {
	remember(t, s.svc, "alice", "s", "2023-05-07", "my cat is called Tom")
	remember(t, s.svc, "bob", "s", "2023-05-07", "my dog is called Rex")
	for _, f := range memory.Fusions {
		res, err := s.svc.Recall(ctx, memory.RecallRequest{Namespace: "alice", Query: "what is my dog called", K: 10, Fusion: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Errorf("fusion %s: alice recalls nothing", f)
		}
		for _, h := range res.Hits {
			if h.Memory.Namespace != "alice" {
				t.Errorf("fusion %s: alice sees %s's memory %q", f, h.Memory.Namespace, h.Memory.Text)
			}
		}
	}
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: "nobody", Query: "cat"}); len(got) != 0 {
		t.Fatalf("empty namespace returned %v", got)
	}
	ms, err := s.st.Session(ctx, "bob", "s")
	if err != nil || len(ms) != 1 || ms[0].Text != "my dog is called Rex" {
		t.Errorf("bob's session: %+v %v", ms, err)
	}
}

func (s *suite) vectorFindsParaphrase(t *testing.T) {
	ns := "paraphrase"
	remember(t, s.svc, ns, "s1", "2023-05-07", "My daughter started learning the violin at school.", "Lovely.")
	remember(t, s.svc, ns, "s2", "2023-05-08", "Which musical was on at the theatre?", "Cats, I think.")
	got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Which instrument is my kid studying?", K: 1, Fusion: memory.VectorOnly})
	if len(got) != 1 || got[0] != "s1:0" {
		t.Fatalf("vector recall = %v, want s1:0", got)
	}
	got = recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Which instrument is my kid studying?", K: 1})
	if len(got) != 1 || got[0] != "s1:0" {
		t.Fatalf("hybrid recall = %v, want s1:0", got)
	}
}

// A memory with several windows scores as its best one.
func (s *suite) bestWindow(t *testing.T) {
	ns := "windows"
	long := s.memory(ns, "s-long", 0, "A long story whose tail is about sailing.", []float32{0, 1})
	long.Vectors = append(long.Vectors, s.unit([]float32{0, 0, 0, 1}))
	other := s.memory(ns, "s-other", 0, "Something else.", []float32{0, 0, 1, 0.5})
	if err := s.st.Put(ctx, []memory.Memory{long, other}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.st.Search(ctx, memory.Query{Namespace: ns, Text: "x", Vector: s.unit([]float32{0, 0, 0, 1}), K: 1, Fusion: memory.VectorOnly})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Memory.ID != "s-long:0" {
		t.Errorf("hits %v, want the memory whose second window matches", ids(hits))
	}
}

// twoSides are 16 memories of ns for the query "kiwi" with the vector
// (0, 1): 8 in session "text" found by their text alone, 8 in session
// "vec" by their vectors alone, in the order of their turns.
func (s *suite) twoSides(ns string) []memory.Memory {
	var ms []memory.Memory
	for i := range 8 {
		// found by their text; their vectors point away from the query
		ms = append(ms, s.memory(ns, "text", i, fmt.Sprintf("kiwi note %d", i), []float32{1, 0, float32(i) / 10}))
		// found by their vectors only
		ms = append(ms, s.memory(ns, "vec", i, fmt.Sprintf("plain note %d", i), []float32{float32(i) / 10, 1}))
	}
	return ms
}

// A search that asks for more than its pool gets the fused candidates of
// the two sides' pools, never deeper pools (a recall that fills asks for
// them all: a deeper pool would rank its best k otherwise).
func (s *suite) fusedPool(t *testing.T) {
	ns := "fusedpool"
	if err := s.st.Put(ctx, s.twoSides(ns)); err != nil {
		t.Fatal(err)
	}
	hits, err := s.st.Search(ctx, memory.Query{Namespace: ns, Text: "kiwi", Vector: s.unit([]float32{0, 1}), K: 12, Pool: 5, Fusion: memory.RRF})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]int{}
	for _, h := range hits {
		sessions[h.Memory.SessionID]++
	}
	if len(hits) != 10 || sessions["text"] != 5 || sessions["vec"] != 5 {
		t.Errorf("pool 5, k 12: %d hits (%v), want the 5 best of each side", len(hits), sessions)
	}
}

// A query that names a period searches each side deeper (Query.Depth),
// and keeps of what it finds past the pool only the best
// memory.PeriodExtra dated in the period: memories of May that neither
// side ranked within its pool of 5 are found by a query that names May,
// and June's memories past the pool are not; without the period, or with
// the time boost off, the pool is what it was.
func (s *suite) periodSearchedDeeper(t *testing.T) {
	ns := "deeper"
	ms := s.twoSides(ns) // three "vec" memories past a pool of 5
	may := time.Date(2023, 5, 3, 0, 0, 0, 0, time.UTC)
	for i := range memory.PeriodExtra + 2 {
		// dated in May, ranked by their vectors after every "vec" memory
		m := s.memory(ns, "may", i, fmt.Sprintf("other remark %d", i), []float32{1 + float32(i)/100, 1})
		m.SessionDate = may
		ms = append(ms, m)
	}
	if err := s.st.Put(ctx, ms); err != nil {
		t.Fatal(err)
	}
	inMay := []memory.Period{{Text: "in May", From: time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)}}
	cases := []struct {
		periods []memory.Period
		time    float64
		want    map[string]int
	}{
		{nil, 0, map[string]int{"text": 5, "vec": 5}},
		{inMay, -1, map[string]int{"text": 5, "vec": 5}},
		{inMay, 0, map[string]int{"text": 5, "vec": 5, "may": memory.PeriodExtra}},
	}
	for _, c := range cases {
		q := memory.Query{Namespace: ns, Text: "kiwi", Vector: s.unit([]float32{0, 1}), K: 40, Pool: 5, Fusion: memory.RRF, Periods: c.periods, Weights: memory.Weights{Time: c.time}}
		hits, err := s.st.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		sessions := map[string]int{}
		for _, h := range hits {
			sessions[h.Memory.SessionID]++
		}
		if !maps.Equal(sessions, c.want) {
			t.Errorf("periods %v, time %v: %v, want %v", c.periods, c.time, sessions, c.want)
		}
		for _, h := range hits {
			if h.Memory.SessionID == "may" && h.Memory.Turn >= memory.PeriodExtra {
				t.Errorf("in May: %v, want May's best %d, the last two left out", ids(hits), memory.PeriodExtra)
				break
			}
		}
	}
}

func (s *suite) filtersAndOrder(t *testing.T) {
	ns := "filters"
	remember(t, s.svc, ns, "a", "2023-01-10", "I ran a marathon in Boston")
	remember(t, s.svc, ns, "b", "2023-03-10", "I ran a half marathon in Paris")
	remember(t, s.svc, ns, "c", "2023-05-10", "I ran a marathon in Tokyo")
	for _, f := range []memory.Fusion{memory.RRF, memory.TextOnly, memory.VectorOnly} {
		cases := []struct {
			req  memory.RecallRequest
			want string
		}{
			{memory.RecallRequest{Query: "marathon", Before: "2023-03-10"}, "a:0 b:0"},
			{memory.RecallRequest{Query: "marathon", After: "2023-02-01", Before: "2023-04-01"}, "b:0"},
			{memory.RecallRequest{Query: "marathon", SessionID: "c"}, "c:0"},
			{memory.RecallRequest{Query: "marathon", ExcludeSession: "c"}, "a:0 b:0"},
			{memory.RecallRequest{Query: "marathon", ExcludeSession: "c", Before: "2023-03-01"}, "a:0"},
			{memory.RecallRequest{Query: "marathon", ExcludeSession: "c", SessionID: "c"}, ""},
			{memory.RecallRequest{Query: "marathon", ExcludeSession: "c", SessionID: "b"}, "b:0"},
			{memory.RecallRequest{Query: "marathon", ExcludeSession: "none-such"}, "a:0 b:0 c:0"},
			{memory.RecallRequest{Query: "marathon", Order: memory.Chronological}, "a:0 b:0 c:0"},
			{memory.RecallRequest{Query: "marathon", Order: memory.Recency}, "c:0 b:0 a:0"},
		}
		for _, c := range cases {
			c.req.Namespace, c.req.Fusion = ns, f
			got := recallIDs(t, s.svc, c.req)
			gotText := strings.Join(got, " ")
			if c.req.Order == "" {
				// relevance order is not what this case tests
				gotText = strings.Join(slices.Sorted(slices.Values(got)), " ")
			}
			if gotText != c.want {
				t.Errorf("%s %+v = %q, want %q", f, c.req, gotText, c.want)
			}
		}
	}
	var fe *memory.FieldError
	for _, req := range []memory.RecallRequest{
		{Query: ""}, {Query: "x", K: 101}, {Query: "x", K: -1}, {Query: "x", After: "soonish"},
		{Query: "x", Order: "random"}, {Query: "x", Fusion: "magic"}, {Query: "x", ExcludeSession: "a b"},
		{Query: "x", After: "2023-05-01", Before: "2023-04-01"},
		{Query: "x", Weights: &memory.Weights{Text: math.NaN()}}, {Query: "x", Weights: &memory.Weights{Vector: 1e308}},
	} {
		if req.K == 0 && req.Query != "x" {
			req.K = 10
		}
		if _, err := s.svc.Recall(ctx, req); !errors.As(err, &fe) {
			t.Errorf("%+v: err = %v, want a field error", req, err)
		}
	}
}

// A date bound that excludes nothing leaves the ranking and the scores as
// they are: filters select, they do not score.
func (s *suite) filtersDoNotScore(t *testing.T) {
	ns := "filterscore"
	dates := []string{"2023-01-03", "2023-02-14", "2023-03-30", "2023-04-02", "2023-05-20"}
	for i, d := range dates {
		remember(t, s.svc, ns, fmt.Sprint("s", i), d,
			fmt.Sprintf("we talked about the garden and tomatoes %s", strings.Repeat("and more words ", i)),
			"tomatoes again, with basil")
	}
	plain, err := s.svc.Recall(ctx, memory.RecallRequest{Namespace: ns, Query: "garden tomatoes basil", K: 10, Fusion: memory.TextOnly})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []memory.RecallRequest{
		{Namespace: ns, Query: "garden tomatoes basil", K: 10, Fusion: memory.TextOnly, Before: "2024-01-01"},
		{Namespace: ns, Query: "garden tomatoes basil", K: 10, Fusion: memory.TextOnly, After: "2022-01-01", Before: "2024-01-01"},
	} {
		got, err := s.svc.Recall(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Hits) != len(plain.Hits) {
			t.Fatalf("%d hits with a bound that excludes nothing, %d without", len(got.Hits), len(plain.Hits))
		}
		for i := range got.Hits {
			if got.Hits[i].Memory.ID != plain.Hits[i].Memory.ID || got.Hits[i].Score != plain.Hits[i].Score {
				t.Errorf("rank %d: %s %.6f with bounds, %s %.6f without", i, got.Hits[i].Memory.ID, got.Hits[i].Score, plain.Hits[i].Memory.ID, plain.Hits[i].Score)
			}
		}
	}
}

func (s *suite) sessionInOrder(t *testing.T) {
	ns := "order"
	var texts []string
	for i := range 12 {
		texts = append(texts, fmt.Sprintf("turn number %d", i))
	}
	remember(t, s.svc, ns, "s", "2023-05-07", texts...)
	got, err := s.st.Session(ctx, ns, "s")
	if err != nil || len(got) != 12 {
		t.Fatalf("session: %d memories, %v", len(got), err)
	}
	for i, m := range got {
		if m.Turn != i || m.Text != texts[i] || m.ID != memory.MemoryID("s", i) {
			t.Errorf("turn %d = %+v", i, m)
		}
	}
	none, err := s.st.Session(ctx, ns, "no-such-session")
	if err != nil || len(none) != 0 {
		t.Errorf("unknown session: %v, %v", none, err)
	}
}

// Putting a memory whose id exists replaces it: no duplicate, new text.
func (s *suite) rePutReplaces(t *testing.T) {
	ns := "reput"
	m := s.memory(ns, "s", 0, "the original text about kayaks", []float32{1})
	if err := s.st.Put(ctx, []memory.Memory{m}); err != nil {
		t.Fatal(err)
	}
	m.Text = "the replaced text about canoes"
	for range 2 {
		if err := s.st.Put(ctx, []memory.Memory{m}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.st.Session(ctx, ns, "s")
	if err != nil || len(got) != 1 || got[0].Text != m.Text {
		t.Fatalf("session after re-put: %+v %v", got, err)
	}
	for _, f := range []memory.Fusion{memory.TextOnly, memory.VectorOnly} {
		hits, err := s.st.Search(ctx, memory.Query{Namespace: ns, Text: "kayaks canoes text", Vector: s.unit([]float32{1}), K: 10, Fusion: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].Memory.Text != m.Text {
			t.Errorf("%s after re-put: %+v", f, hits)
		}
	}
	if hits := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "kayaks", Fusion: memory.TextOnly}); len(hits) != 0 {
		t.Errorf("the replaced text is still found: %v", hits)
	}
}

// A search right after a write sees it, across more than one index batch.
func (s *suite) searchSeesLastWrite(t *testing.T) {
	ns := "lastwrite"
	for i := range 30 {
		var texts []string
		for j := range 40 {
			texts = append(texts, fmt.Sprintf("session %d turn %d about topic%d", i, j, i*40+j))
		}
		remember(t, s.svc, ns, fmt.Sprintf("s%d", i), "2023-05-07", texts...)
	}
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "topic1199", K: 1}); len(got) != 1 || got[0] != "s29:39" {
		t.Fatalf("recall of the last write = %v", got)
	}
}

// The speaker's name is part of what is embedded, so a question naming a
// speaker lands near that speaker's turns even on the vector side alone.
func (s *suite) speakerInVector(t *testing.T) {
	ns := "speaker"
	for _, sp := range []string{"Melanie", "Caroline"} {
		_, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "s-" + sp, SessionDate: "2023-05-07",
			Messages: []memory.Message{{Role: "user", Speaker: sp, Content: "I went to a support group yesterday"}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, sp := range []string{"Caroline", "Melanie"} {
		got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Where did " + sp + " go", K: 1, Fusion: memory.VectorOnly})
		if len(got) != 1 || got[0] != "s-"+sp+":0" {
			t.Errorf("vector recall for %s = %v", sp, got)
		}
	}
}

// kindsMatch: a query's word finds a memory that names a thing of that
// kind and shares no word with it (hybrid.FieldKinds), on the text side
// alone, and not with weights.kinds off.
func (s *suite) kindsMatch(t *testing.T) {
	ns := "kinds"
	remember(t, s.svc, ns, "s", "2023-08-13",
		"We drove all the way to Oregon last summer.",
		"The weather was lovely the whole week.",
		"Next year my brother wants to see the whole coast with us.")
	q := memory.RecallRequest{Namespace: ns, Query: "Which states did we visit?", K: 1, Fusion: memory.TextOnly}
	if got := recallIDs(t, s.svc, q); len(got) != 1 || got[0] != "s:0" {
		t.Errorf("recall %q = %v, want s:0 (Oregon, a state)", q.Query, got)
	}
	q.Weights = &memory.Weights{Kinds: -1}
	if got := recallIDs(t, s.svc, q); len(got) != 0 {
		t.Errorf("recall %q with weights.kinds off = %v, want nothing: no memory shares a word with it", q.Query, got)
	}
}

// A question asks with a verb's base ("What did she buy?") where the
// conversation said its irregular past ("I bought"), which stemming does
// not join; so with British and American spellings, an adjective and its
// degrees ("older", "old"), a noun and its irregular plural ("children",
// "child"). The documents index the forms' bases (package forms), and a
// query's forms are matched as their bases too, so each finds the other.
func (s *suite) formsMatch(t *testing.T) {
	ns := "verbs"
	remember(t, s.svc, ns, "s", "2023-08-13",
		"I bought a kayak at the market.",
		"We meet every Tuesday for practice.",
		"The harbour shop sells kayaks and paddles.",
		"The paddles have a bright color.",
		"My sister turned 32 years old in May.",
		"Our children love the lake.")
	for _, c := range []struct{ query, want string }{
		{"What did I buy?", "s:0"},
		{"buying", "s:0"},
		{"When did we first met?", "s:1"},
		{"colour", "s:3"},        // a British spelling finds the American one
		{"harbor", "s:2"},        // and the other way
		{"Who is older?", "s:4"}, // a comparative finds its adjective
		{"a child", "s:5"},       // a noun finds its irregular plural
	} {
		q := memory.RecallRequest{Namespace: ns, Query: c.query, K: 3, Fusion: memory.TextOnly, Weights: &memory.Weights{Kinds: -1}}
		if got := recallIDs(t, s.svc, q); len(got) != 1 || got[0] != c.want {
			t.Errorf("recall %q = %v, want only %s", c.query, got, c.want)
		}
	}
}

// The name of a speaker of the namespace in a query is matched as the
// speaker or a name a turn mentions, not as a word of the text: in a
// conversation a speaker's name in a turn's text mostly addresses them, and
// a greeting that names John must not outrank what John said about the
// question's topic. Other names stay words of the text, so a turn that
// writes one in lower case, or a word the extractor takes for a name at
// the start of a query ("Chess"), is still found.
func (s *suite) namesMatchAsEntities(t *testing.T) {
	ns := "names"
	turns := []struct{ speaker, text string }{
		{"John", "Hey Maria! How have you been?"},
		{"Maria", "Hi John! Good to see you, John."},
		{"John", "Since we last talked I started volunteering as a mentor at a local school, and the students are great."},
		{"Maria", "That is great, John!"},
		{"John", "Thanks, Maria!"},
		{"Maria", "my cousin sam got a puppy, a tiny beagle."},
		{"John", "I joined the chess club downtown."},
	}
	msgs := make([]memory.Message, len(turns))
	for i, tn := range turns {
		msgs[i] = memory.Message{Role: "user", Speaker: tn.speaker, Content: tn.text}
	}
	if _, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "s", SessionDate: "2023-08-13", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ query, want string }{
		{"What is John doing as a volunteer?", "s:2"},
		{"What did Sam get?", "s:5"},
		{"Chess", "s:6"},
	} {
		got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: c.query, K: 1, Fusion: memory.TextOnly})
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("recall %q = %v, want %s first", c.query, got, c.want)
		}
	}
	// a speaker's name alone still finds the turns of that name
	got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Maria", K: 10, Fusion: memory.TextOnly})
	slices.Sort(got)
	if want := []string{"s:0", "s:1", "s:3", "s:4", "s:5"}; !slices.Equal(got, want) {
		t.Errorf("recall of a name alone = %v, want %v: the turns that are Maria's or name her", got, want)
	}

	// a speaker whose turns are all forgotten is no longer one: a lower-case
	// mention of the name is found by its text again
	if _, err := s.svc.Remember(ctx, memory.RememberRequest{Namespace: ns, SessionID: "k", SessionDate: "2023-08-14", Messages: []memory.Message{
		{Role: "user", Speaker: "Ken", Content: "I finally bought a red kayak."},
		{Role: "user", Speaker: "Maria", Content: "my neighbour ken called me yesterday."},
	}}); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Tell me about Ken", K: 10, Fusion: memory.TextOnly}); !slices.Equal(got, []string{"k:0"}) {
		t.Errorf("recall naming the speaker Ken = %v, want [k:0]: his own turn, matched as its speaker", got)
	}
	if _, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, IDs: []string{"k:0"}}); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Tell me about Ken", K: 10, Fusion: memory.TextOnly}); !slices.Equal(got, []string{"k:1"}) {
		t.Errorf("recall naming Ken after his turns were forgotten = %v, want [k:1]: the turn that names him in lower case", got)
	}
}

// Forgetting a namespace of many sessions empties the store's indexes of
// it (in the embedded store this once looped forever in bbolt).
func (s *suite) forgetManySessions(t *testing.T) {
	ns := "many"
	for i := range 30 {
		var texts []string
		for j := range 22 {
			texts = append(texts, fmt.Sprintf("session %d turn %d about otters", i, j))
		}
		remember(t, s.svc, ns, fmt.Sprint("s", i), "2023-05-07", texts...)
	}
	res, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, All: true, Confirm: true})
	if err != nil || res.Deleted != 660 {
		t.Fatalf("forget: %+v %v, want 660 deleted", res, err)
	}
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "otters"}); len(got) != 0 {
		t.Errorf("recall after forgetting the namespace: %v", got)
	}
}

func (s *suite) restartAndForget(t *testing.T) {
	ns := "restart"
	remember(t, s.svc, ns, "s1", "2023-05-07", "we adopted a puppy named Biscuit", "congratulations")
	remember(t, s.svc, ns, "s2", "2023-05-08", "Biscuit chewed my shoes", "oh no")
	if err := s.st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := s.open(s.emb.ID(), s.emb.Dims(), false)
	if err != nil {
		t.Fatal(err)
	}
	s.st, s.svc = st, s.service(t, st, s.emb)
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Biscuit", Fusion: memory.VectorOnly}); len(got) != 4 {
		t.Fatalf("after restart vector recall = %v, want all 4", got)
	}
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Biscuit", Fusion: memory.TextOnly}); len(got) != 2 {
		t.Fatalf("after restart text recall = %v, want 2", got)
	}
	del := func(req memory.ForgetRequest) int {
		t.Helper()
		req.Namespace = ns
		res, err := s.svc.Forget(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Deleted
	}
	if n := del(memory.ForgetRequest{IDs: []string{"s1:1", "s1:1", "nope:9"}}); n != 1 {
		t.Fatalf("forget ids deleted %d, want 1", n)
	}
	if n := del(memory.ForgetRequest{SessionID: "s2"}); n != 2 {
		t.Fatalf("forget session deleted %d, want 2", n)
	}
	if _, err := s.svc.Forget(ctx, memory.ForgetRequest{Namespace: ns, All: true}); err == nil || !strings.Contains(err.Error(), "confirm") {
		t.Fatalf("forget all without confirm: %v", err)
	}
	if n := del(memory.ForgetRequest{All: true, Confirm: true}); n != 1 {
		t.Fatalf("forget all deleted %d, want 1", n)
	}
	for _, f := range []memory.Fusion{memory.TextOnly, memory.VectorOnly} {
		if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: ns, Query: "Biscuit puppy", Fusion: f}); len(got) != 0 {
			t.Fatalf("%s after forget all = %v", f, got)
		}
	}
	if got := recallIDs(t, s.svc, memory.RecallRequest{Namespace: "alice", Query: "cat Tom", Fusion: memory.TextOnly}); len(got) == 0 {
		t.Error("forgetting one namespace touched another")
	}
	// a forgotten session can be remembered again from turn 0
	if r := remember(t, s.svc, ns, "s2", "2023-05-08", "Biscuit chewed my shoes"); r.IDs[0] != "s2:0" {
		t.Fatalf("re-remember = %+v", r)
	}
}

func embedderMismatchAndReindex(t *testing.T, open Open, keyValue bool) {
	old := &fake.Embedder{Name: "old", N: 32}
	st, err := open(old.ID(), old.Dims(), false)
	if err != nil {
		t.Fatal(err)
	}
	s := &suite{open: open, emb: old}
	svc := s.service(t, st, old)
	remember(t, svc, "", "s1", "2023-05-07", "the lake house is in Maine")
	st.Close()

	next := &fake.Embedder{Name: "new", N: 32}
	if st, err := open(next.ID(), next.Dims(), false); !errors.Is(err, memory.ErrEmbedderMismatch) || !strings.Contains(err.Error(), "agentmem reindex") {
		if err == nil {
			st.Close()
		}
		t.Fatalf("open with another embedder: %v, want ErrEmbedderMismatch naming agentmem reindex", err)
	}
	st, err = open("", 0, true)
	r := reindexer(t, st, err)
	var done, total int
	if err := memory.Reindex(ctx, r, next, func(d, n int) { done, total = d, n }); err != nil {
		t.Fatal(err)
	}
	if done != total || total != 1 {
		t.Errorf("progress %d/%d, want 1/1", done, total)
	}
	st.Close()
	st, err = open(next.ID(), next.Dims(), false)
	if err != nil {
		t.Fatalf("open with the new embedder after reindex: %v", err)
	}
	defer st.Close()
	if id, dims := st.Embedder(); id != next.ID() || dims != next.Dims() {
		t.Fatalf("embedder after reindex = %s/%d", id, dims)
	}
	if keyValue {
		// the memory's vectors are the new embedder's
		got := exported(t, st)
		if len(got) != 1 || got[0].Embedder != next.ID() || len(got[0].Vectors) == 0 || len(got[0].Vectors[0]) != next.Dims() {
			t.Fatalf("after reindex the store exports %+v, want the memory with the new embedder's vector", got)
		}
		return
	}
	svc = s.service(t, st, next)
	if got := recallIDs(t, svc, memory.RecallRequest{Query: "where is the lake house", Fusion: memory.VectorOnly}); len(got) != 1 {
		t.Fatalf("vector recall after reindex = %v", got)
	}
}

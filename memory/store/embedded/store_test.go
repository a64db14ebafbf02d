package embedded_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
)

var ctx = context.Background()

func open(t testing.TB, dir string, e memory.Embedder) (*memory.Service, *embedded.Store) {
	t.Helper()
	opts := embedded.Options{NoSync: true}
	if e != nil {
		opts.EmbedderID, opts.Dims = e.ID(), e.Dims()
	}
	st, err := embedded.Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := memory.New(memory.Options{Store: st, Embedder: e, Now: func() time.Time {
		return time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
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
	res, err := svc.Recall(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.Memory.ID)
	}
	return ids
}

func TestRememberRecallLexical(t *testing.T) {
	svc, st := open(t, t.TempDir(), nil)
	defer st.Close()
	remember(t, svc, "", "s-may", "1:56 pm on 8 May, 2023",
		"I went to the Nordstrom friends and family sale yesterday.",
		"Nice! Did you find anything?",
		"A pair of boots for my hiking trip.")
	remember(t, svc, "", "s-june", "2023-06-01",
		"My daughter started learning the violin at school.",
		"That is wonderful.")
	ids := recallIDs(t, svc, memory.RecallRequest{Query: "When did I go to the Nordstrom sale?", K: 3})
	if len(ids) == 0 || ids[0] != "s-may:0" {
		t.Fatalf("recall = %v, want s-may:0 first", ids)
	}
	res, _ := svc.Recall(ctx, memory.RecallRequest{Query: "Nordstrom", K: 1})
	got := res.Hits[0].Memory
	if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); !got.SessionDate.Equal(want) {
		t.Errorf("session date = %v, want %v", got.SessionDate, want)
	}
	if !strings.HasPrefix(got.Header(), "[2023-05-08 Mon · session s-may · user]") {
		t.Errorf("header = %q", got.Header())
	}
}

func TestIdempotentAndAppend(t *testing.T) {
	svc, st := open(t, t.TempDir(), nil)
	defer st.Close()
	first := remember(t, svc, "", "s1", "2023-05-07", "one", "two", "three")
	if first.Stored != 3 {
		t.Fatalf("stored %d, want 3", first.Stored)
	}
	again := remember(t, svc, "", "s1", "2023-05-07", "one", "two", "three")
	if again.Stored != 0 || again.Skipped != 3 {
		t.Fatalf("resend stored %d skipped %d, want 0 and 3", again.Stored, again.Skipped)
	}
	// the whole session plus a new turn: only the new one is stored
	more := remember(t, svc, "", "s1", "", "one", "two", "three", "four")
	if more.Stored != 1 || more.IDs[0] != "s1:3" {
		t.Fatalf("extended resend = %+v, want one new turn s1:3", more)
	}
	// only the new turns, in a later call; no date means the session's own
	tail := remember(t, svc, "", "s1", "", "five", "six")
	if tail.Stored != 2 || tail.IDs[1] != "s1:5" {
		t.Fatalf("append = %+v", tail)
	}
	ms, err := st.Session(ctx, memory.DefaultNamespace, "s1")
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
	// No session id: derived from content, so a resend is still stored once.
	a := remember(t, svc, "", "", "2023-05-08", "hello there", "hi")
	b := remember(t, svc, "", "", "2023-05-08", "hello there", "hi")
	if a.SessionID != b.SessionID || b.Stored != 0 {
		t.Fatalf("derived ids %q/%q, second stored %d", a.SessionID, b.SessionID, b.Stored)
	}
}

func TestAllOrNothing(t *testing.T) {
	svc, st := open(t, t.TempDir(), nil)
	defer st.Close()
	bad := []memory.Message{
		{Role: "user", Content: "fine"},
		{Role: "user", Content: strings.Repeat("x", memory.MaxContentBytes+1)},
	}
	_, err := svc.Remember(ctx, memory.RememberRequest{SessionID: "s", Messages: bad})
	var fe *memory.FieldError
	if !errors.As(err, &fe) || fe.Field != "messages[1].content" || !strings.Contains(err.Error(), fmt.Sprint(memory.MaxContentBytes)) {
		t.Fatalf("err = %v, want a field error on messages[1].content naming the limit", err)
	}
	cases := []struct {
		req   memory.RememberRequest
		field string
	}{
		{memory.RememberRequest{}, "messages"},
		{memory.RememberRequest{Messages: []memory.Message{{Role: "robot", Content: "x"}}}, "messages[0].role"},
		{memory.RememberRequest{Messages: []memory.Message{{Role: "user", Content: " "}}}, "messages[0].content"},
		{memory.RememberRequest{Messages: msgs("x"), SessionDate: "not a date at all"}, "session_date"},
		{memory.RememberRequest{Messages: []memory.Message{{Role: "user", Content: "x", Timestamp: "whenever"}}}, "messages[0].timestamp"},
		{memory.RememberRequest{Messages: msgs("x"), Namespace: "bad ns!"}, "namespace"},
		{memory.RememberRequest{Messages: msgs("x"), SessionID: strings.Repeat("s", 300)}, "session_id"},
	}
	for _, c := range cases {
		_, err := svc.Remember(ctx, c.req)
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: err = %v, want field %s", c.req, err, c.field)
		}
	}
	if ids := recallIDs(t, svc, memory.RecallRequest{Query: "fine"}); len(ids) != 0 {
		t.Fatalf("a rejected call stored %v", ids)
	}
}

func TestNamespacesIsolated(t *testing.T) {
	e := &fake.Embedder{Name: "t"}
	svc, st := open(t, t.TempDir(), e)
	defer st.Close()
	remember(t, svc, "alice", "s", "2023-05-07", "my cat is called Tom")
	remember(t, svc, "bob", "s", "2023-05-07", "my dog is called Rex")
	for _, f := range []memory.Fusion{memory.RRF, memory.TextOnly, memory.VectorOnly, memory.Rerank, memory.RSF} {
		res, err := svc.Recall(ctx, memory.RecallRequest{Namespace: "alice", Query: "what is my dog called", K: 10, Fusion: f})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.Memory.Namespace != "alice" {
				t.Errorf("fusion %s: alice sees %s's memory %q", f, h.Memory.Namespace, h.Memory.Text)
			}
		}
	}
	if ids := recallIDs(t, svc, memory.RecallRequest{Namespace: "nobody", Query: "cat"}); len(ids) != 0 {
		t.Fatalf("empty namespace returned %v", ids)
	}
}

func TestVectorFindsParaphrase(t *testing.T) {
	e := &fake.Embedder{Name: "t", Synonyms: map[string]string{"instrument": "violin", "kid": "daughter", "studying": "learning"}}
	svc, st := open(t, t.TempDir(), e)
	defer st.Close()
	remember(t, svc, "", "s1", "2023-05-07", "My daughter started learning the violin at school.", "Lovely.")
	remember(t, svc, "", "s2", "2023-05-08", "Which musical was on at the theatre?", "Cats, I think.")
	ids := recallIDs(t, svc, memory.RecallRequest{Query: "Which instrument is my kid studying?", K: 1, Fusion: memory.VectorOnly})
	if len(ids) != 1 || ids[0] != "s1:0" {
		t.Fatalf("vector recall = %v, want s1:0", ids)
	}
	ids = recallIDs(t, svc, memory.RecallRequest{Query: "Which instrument is my kid studying?", K: 1})
	if len(ids) != 1 || ids[0] != "s1:0" {
		t.Fatalf("hybrid recall = %v, want s1:0", ids)
	}
}

func TestFiltersAndOrder(t *testing.T) {
	svc, st := open(t, t.TempDir(), nil)
	defer st.Close()
	remember(t, svc, "", "a", "2023-01-10", "I ran a marathon in Boston")
	remember(t, svc, "", "b", "2023-03-10", "I ran a half marathon in Paris")
	remember(t, svc, "", "c", "2023-05-10", "I ran a marathon in Tokyo")
	cases := []struct {
		req  memory.RecallRequest
		want string
	}{
		{memory.RecallRequest{Query: "marathon", Before: "2023-03-10"}, "a:0 b:0"},
		{memory.RecallRequest{Query: "marathon", After: "2023-02-01", Before: "2023-04-01"}, "b:0"},
		{memory.RecallRequest{Query: "marathon", SessionID: "c"}, "c:0"},
		{memory.RecallRequest{Query: "marathon", Order: memory.Chronological}, "a:0 b:0 c:0"},
		{memory.RecallRequest{Query: "marathon", Order: memory.Recency}, "c:0 b:0 a:0"},
	}
	for _, c := range cases {
		ids := recallIDs(t, svc, c.req)
		got := strings.Join(ids, " ")
		if c.req.Order == "" {
			// relevance order is not what this case tests
			got = strings.Join(slices.Sorted(slices.Values(ids)), " ")
		}
		if got != c.want {
			t.Errorf("%+v = %q, want %q", c.req, got, c.want)
		}
	}
	var fe *memory.FieldError
	for _, req := range []memory.RecallRequest{
		{Query: ""}, {Query: "x", K: 101}, {Query: "x", K: -1}, {Query: "x", After: "soonish"},
		{Query: "x", Order: "random"}, {Query: "x", Fusion: "magic"}, {Query: "x", Fusion: memory.VectorOnly},
		{Query: "x", After: "2023-05-01", Before: "2023-04-01"},
	} {
		if _, err := svc.Recall(ctx, req); !errors.As(err, &fe) {
			t.Errorf("%+v: err = %v, want a field error", req, err)
		}
	}
}

func TestRestartAndForget(t *testing.T) {
	dir := t.TempDir()
	e := &fake.Embedder{Name: "t"}
	svc, st := open(t, dir, e)
	remember(t, svc, "", "s1", "2023-05-07", "we adopted a puppy named Biscuit", "congratulations")
	remember(t, svc, "", "s2", "2023-05-08", "Biscuit chewed my shoes", "oh no")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	svc, st = open(t, dir, e)
	defer st.Close()
	if ids := recallIDs(t, svc, memory.RecallRequest{Query: "Biscuit", Fusion: memory.VectorOnly}); len(ids) != 4 {
		t.Fatalf("after restart vector recall = %v, want all 4", ids)
	}
	if ids := recallIDs(t, svc, memory.RecallRequest{Query: "Biscuit", Fusion: memory.TextOnly}); len(ids) != 2 {
		t.Fatalf("after restart text recall = %v, want 2", ids)
	}
	del := func(req memory.ForgetRequest) int {
		t.Helper()
		res, err := svc.Forget(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res.Deleted
	}
	if n := del(memory.ForgetRequest{IDs: []string{"s1:1", "nope:9"}}); n != 1 {
		t.Fatalf("forget ids deleted %d, want 1", n)
	}
	if n := del(memory.ForgetRequest{SessionID: "s2"}); n != 2 {
		t.Fatalf("forget session deleted %d, want 2", n)
	}
	if _, err := svc.Forget(ctx, memory.ForgetRequest{All: true}); err == nil || !strings.Contains(err.Error(), "confirm") {
		t.Fatalf("forget all without confirm: %v", err)
	}
	if n := del(memory.ForgetRequest{All: true, Confirm: true}); n != 1 {
		t.Fatalf("forget all deleted %d, want 1", n)
	}
	for _, f := range []memory.Fusion{memory.TextOnly, memory.VectorOnly} {
		if ids := recallIDs(t, svc, memory.RecallRequest{Query: "Biscuit puppy", Fusion: f}); len(ids) != 0 {
			t.Fatalf("%s after forget all = %v", f, ids)
		}
	}
	// a forgotten session can be remembered again from turn 0
	if r := remember(t, svc, "", "s2", "2023-05-08", "Biscuit chewed my shoes"); r.IDs[0] != "s2:0" {
		t.Fatalf("re-remember = %+v", r)
	}
}

func TestEmbedderMismatchAndReindex(t *testing.T) {
	dir := t.TempDir()
	old := &fake.Embedder{Name: "old", N: 32}
	svc, st := open(t, dir, old)
	remember(t, svc, "", "s1", "2023-05-07", "the lake house is in Maine")
	st.Close()

	next := &fake.Embedder{Name: "new", N: 48}
	_, err := embedded.Open(ctx, dir, embedded.Options{EmbedderID: next.ID(), Dims: next.Dims()})
	if !errors.Is(err, memory.ErrEmbedderMismatch) || !strings.Contains(err.Error(), "agentmem reindex") {
		t.Fatalf("open with another embedder: %v", err)
	}
	st, err = embedded.Open(ctx, dir, embedded.Options{SkipEmbedderCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := memory.Reindex(ctx, st, next, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	svc, st = open(t, dir, next)
	defer st.Close()
	if id, dims := st.Embedder(); id != next.ID() || dims != 48 {
		t.Fatalf("embedder after reindex = %s/%d", id, dims)
	}
	if ids := recallIDs(t, svc, memory.RecallRequest{Query: "where is the lake house", Fusion: memory.VectorOnly}); len(ids) != 1 {
		t.Fatalf("vector recall after reindex = %v", ids)
	}
}

func TestManyTurnsFlushBatches(t *testing.T) {
	svc, st := open(t, t.TempDir(), nil)
	defer st.Close()
	// more than one index batch, then an immediate search must see the last write
	for s := 0; s < 30; s++ {
		var texts []string
		for i := 0; i < 40; i++ {
			texts = append(texts, fmt.Sprintf("session %d turn %d about topic%d", s, i, s*40+i))
		}
		remember(t, svc, "", fmt.Sprintf("s%d", s), "2023-05-07", texts...)
	}
	if ids := recallIDs(t, svc, memory.RecallRequest{Query: "topic1199", K: 1}); len(ids) != 1 || ids[0] != "s29:39" {
		t.Fatalf("recall of the last write = %v", ids)
	}
}

// The speaker's name is part of what is embedded, so a question naming a
// speaker lands near that speaker's turns even on the vector side alone.
func TestSpeakerInVector(t *testing.T) {
	svc, st := open(t, t.TempDir(), &fake.Embedder{Name: "t"})
	defer st.Close()
	for _, sp := range []string{"Melanie", "Caroline"} {
		_, err := svc.Remember(ctx, memory.RememberRequest{SessionID: "s-" + sp, SessionDate: "2023-05-07",
			Messages: []memory.Message{{Role: "user", Speaker: sp, Content: "I went to a support group yesterday"}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, sp := range []string{"Caroline", "Melanie"} {
		ids := recallIDs(t, svc, memory.RecallRequest{Query: "Where did " + sp + " go", K: 1, Fusion: memory.VectorOnly})
		if len(ids) != 1 || ids[0] != "s-"+sp+":0" {
			t.Errorf("vector recall for %s = %v", sp, ids)
		}
	}
}

// A date bound that excludes nothing leaves the ranking and the scores as
// they are: filters select, they do not score.
func TestFiltersDoNotScore(t *testing.T) {
	svc, st := open(t, t.TempDir(), nil)
	defer st.Close()
	dates := []string{"2023-01-03", "2023-02-14", "2023-03-30", "2023-04-02", "2023-05-20"}
	for i, d := range dates {
		remember(t, svc, "", fmt.Sprint("s", i), d,
			fmt.Sprintf("we talked about the garden and tomatoes %s", strings.Repeat("and more words ", i)),
			"tomatoes again, with basil")
	}
	plain, err := svc.Recall(ctx, memory.RecallRequest{Query: "garden tomatoes basil", K: 10, Fusion: memory.TextOnly})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []memory.RecallRequest{
		{Query: "garden tomatoes basil", K: 10, Fusion: memory.TextOnly, Before: "2024-01-01"},
		{Query: "garden tomatoes basil", K: 10, Fusion: memory.TextOnly, After: "2022-01-01", Before: "2024-01-01"},
	} {
		got, err := svc.Recall(ctx, req)
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

package memory_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
)

func TestShortSession(t *testing.T) {
	for id, want := range map[string]string{
		"5f0b8a2e-3c1d-4e7a-9b6f-1a2b3c4d5e6f":  "5f0b8a2e",
		"5F0B8A2E-3C1D-4E7A-9B6F-1A2B3C4D5E6F":  "5F0B8A2E",
		"5f0b8a2e3c1d4e7a9b6f1a2b3c4d5e6f":      "5f0b8a2e3c1d4e7a9b6f1a2b3c4d5e6f", // not the canonical form
		"5f0b8a2e-3c1d-4e7a-9b6f-1a2b3c4d5e6g":  "5f0b8a2e-3c1d-4e7a-9b6f-1a2b3c4d5e6g",
		"5f0b8a2e-3c1d-4e7a-9b6f-1a2b3c4d5e6f0": "5f0b8a2e-3c1d-4e7a-9b6f-1a2b3c4d5e6f0",
		"session_1":                             "session_1",
		"s-may":                                 "s-may",
	} {
		if got := memory.ShortSession(id); got != want {
			t.Errorf("ShortSession(%q) = %q, want %q", id, got, want)
		}
	}
}

// A recall's text shows a UUID session by its start, and a recall asked
// for that start searches that session.
func TestRecallShowsAndTakesShortSessions(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "short"})
	const a, b = "0b7c1d2e-4f5a-4b6c-8d7e-9f0a1b2c3d4e", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
	for _, id := range []string{a, b} {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: id, SessionDate: "2023-05-01",
			Messages: []memory.Message{{Role: "user", Content: "we talked about the sailing trip to Maine"}, {Role: "assistant", Content: "the boat leaves in August"}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "sailing trip to Maine", Namespace: "n", K: 4})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if strings.Contains(text, a) || strings.Contains(text, b) || !strings.Contains(text, "session 0b7c1d2e]") || !strings.Contains(text, "session 9a8b7c6d]") {
		t.Errorf("the text shows the sessions' ids otherwise than by their starts:\n%s", text)
	}
	only, err := svc.Recall(bg, memory.RecallRequest{Query: "sailing trip to Maine", Namespace: "n", K: 4, SessionID: "9a8b7c6d"})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.Hits) != 2 {
		t.Fatalf("recall in session 9a8b7c6d: %d hits, want its 2 turns", len(only.Hits))
	}
	for _, h := range only.Hits {
		if h.Memory.SessionID != b {
			t.Errorf("recall in session 9a8b7c6d returned a memory of %s", h.Memory.SessionID)
		}
	}
}

// A memory of a UUID session may be forgotten by the start a recall
// shows ("0b7c1d2e:1"), as the session may (a new-user trial found its
// id refused as naming nothing); a start that names several sessions is
// an error naming the id, and an unknown id is reported as given.
func TestForgetIDsByShortSession(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "short"})
	const a = "0b7c1d2e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
	for _, id := range []string{a, "01a234f8-ca51-7a82-8000-000000000001", "01a234f8-ca52-7a82-8000-000000000002"} {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: id, SessionDate: "2023-05-01",
			Messages: []memory.Message{{Role: "user", Content: "we talked about the sailing trip"}, {Role: "assistant", Content: "the boat leaves in August"}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Forget(bg, memory.ForgetRequest{Namespace: "n", IDs: []string{"0b7c1d2e:1", "0b7c1d2e:7"}})
	if err != nil || res.Deleted != 1 || !slices.Equal(res.Unknown, []string{"0b7c1d2e:7"}) {
		t.Fatalf("forget 0b7c1d2e:1 and :7: %+v, %v", res, err)
	}
	if got := texts(t, svc, "n", a); !slices.Equal(got, []string{"we talked about the sailing trip"}) {
		t.Errorf("the session holds %q, want only its first turn", got)
	}
	if _, err := svc.Forget(bg, memory.ForgetRequest{Namespace: "n", IDs: []string{a + ":0", "01a234f8:0"}}); err == nil || !strings.HasPrefix(err.Error(), "ids[1]: ") {
		t.Errorf("forget by a start two sessions share: %v, want an error on ids[1]", err)
	}
	if got := texts(t, svc, "n", a); len(got) != 1 {
		t.Errorf("a refused forget deleted memories: the session holds %q", got)
	}
}

// UUIDv7 ids start with their time, so sessions started within a minute
// share their first 8 characters: each is shown by the shortest start
// that names it alone, which recall takes back.
func TestRecallLabelsSessionsApart(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "labels"})
	ids := []string{"01a234f8-ca51-7a82-8000-000000000001", "01a234f8-ca52-7a82-8000-000000000002", "01a234f8-ca52-7b00-8000-000000000003", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"}
	for _, id := range ids {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: id, SessionDate: "2023-05-01",
			Messages: []memory.Message{{Role: "user", Content: "the sailing trip to Maine, session " + id[len(id)-1:]}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "sailing trip to Maine", Namespace: "n", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	for _, label := range []string{"01a234f8-ca51", "01a234f8-ca52-7a", "01a234f8-ca52-7b", "9a8b7c6d"} {
		if !strings.Contains(text, "session "+label+" ·") {
			t.Errorf("no header names a session %s:\n%s", label, text)
		}
		got, err := svc.Recall(bg, memory.RecallRequest{Query: "sailing trip to Maine", Namespace: "n", K: 10, SessionID: label})
		if err != nil || len(got.Hits) != 1 || !strings.HasPrefix(got.Hits[0].Memory.SessionID, label) {
			t.Errorf("recall in session %s: %d hits, %v", label, len(got.Hits), err)
		}
	}
}

// The budget counts a header as it is shown, a label longer than 8
// characters included: ids that share all but their last characters are
// shown whole, and the text still keeps to max_tokens.
func TestLabelsKeepToTheBudget(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "budget"})
	for i := range 30 {
		id := fmt.Sprintf("019a1b2c-3d4e-7f00-8000-0000000000%02d", i)
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: id, SessionDate: "2023-05-01",
			Messages: []memory.Message{{Role: "user", Content: fmt.Sprintf("note %d about the lake", i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	const budget = 150
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "note about the lake", Namespace: "n", K: 30, MaxTokens: budget})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if !strings.Contains(text, "session 019a1b2c-3d4e-7f00-8000-0000000000") {
		t.Fatalf("the sessions are not shown by their whole ids:\n%s", text)
	}
	// four characters a token, each passage rounded up, "\n\n" between two
	if n := utf8.RuneCountInString(text); n > 4*budget+3*len(res.Passages) {
		t.Errorf("%d passages in %d characters, past a budget of %d tokens:\n%s", len(res.Passages), n, budget, text)
	}
}

// Two UUIDs that differ in case only up to their labels are each named by
// its own, in its case: a label always names its session.
func TestLabelsInTheirCase(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "case"})
	ids := []string{"0a1b2c3d-1111-4000-8000-000000000000", "0A1B2C3D-2222-4000-8000-000000000000"}
	for _, id := range ids {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: id, SessionDate: "2023-05-01",
			Messages: []memory.Message{{Role: "user", Content: "Ana likes fado in " + id[9:13]}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "Ana fado", Namespace: "n", K: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		label := id[:8]
		if !strings.Contains(res.Text(), "session "+label+" ·") {
			t.Errorf("no header names %s:\n%s", label, res.Text())
		}
		ms, err := svc.Session(bg, "n", label)
		if err != nil || len(ms) != 1 || ms[0].SessionID != id {
			t.Errorf("session %s: %d memories, %v", label, len(ms), err)
		}
	}
}

// slowIDs is a store whose SessionIDs is no quick lookup (as Couchbase's
// range scan): it counts the calls.
type slowIDs struct {
	memory.Store
	calls *atomic.Int32
}

func (s slowIDs) SessionIDs(ctx context.Context, ns, prefix string, limit int) ([]string, error) {
	s.calls.Add(1)
	return s.Store.SessionIDs(ctx, ns, prefix, limit)
}

// On a store without quick lookups a recall looks nothing up: it labels
// each session by a start the recall's other sessions do not share, and a
// start an unshown session shares too is refused where a call gives it.
func TestLabelsWithoutQuickLookups(t *testing.T) {
	emb := &fake.Embedder{Name: "slow"}
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{EmbedderID: emb.ID(), Dims: emb.Dims(), Recipe: memory.RecipeOf(emb), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	calls := new(atomic.Int32)
	svc, err := memory.New(memory.Options{Store: slowIDs{st, calls}, Embedder: emb, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	sessions := map[string]string{
		"01a234f8-ca51-7a82-8000-000000000001": "the sailing trip to Maine",
		"01a234f8-ca52-7a82-8000-000000000002": "the sailing trip to Maine again",
		"01a234f8-ca53-7a82-8000-000000000003": "a recipe for bread", // shares 12 characters, not shown
	}
	for id, text := range sessions {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: id, SessionDate: "2023-05-01",
			Messages: []memory.Message{{Role: "user", Content: text}}}); err != nil {
			t.Fatal(err)
		}
	}
	calls.Store(0)
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "sailing trip to Maine", Namespace: "n", K: 2, Fusion: memory.TextOnly})
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the recall looked session ids up %d times", n)
	}
	text := res.Text()
	for _, label := range []string{"01a234f8-ca51", "01a234f8-ca52"} {
		if !strings.Contains(text, "session "+label+" ·") {
			t.Errorf("no header names %s:\n%s", label, text)
		}
	}
	var fe *memory.FieldError
	if _, err := svc.Session(bg, "n", "01a234f8-ca5"); !errors.As(err, &fe) || !strings.Contains(fe.Msg, "ca53") {
		t.Errorf("a start three sessions share: %v, want an error naming them", err)
	}
	if ms, err := svc.Session(bg, "n", "01a234f8-ca52"); err != nil || len(ms) != 1 {
		t.Errorf("session 01a234f8-ca52: %d memories, %v", len(ms), err)
	}
	// a UUIDv7 shown alone is labelled by its whole time, which sessions
	// begun within the same minute do not share
	alone, err := svc.Recall(bg, memory.RecallRequest{Query: "recipe for bread", Namespace: "n", K: 1, Fusion: memory.TextOnly})
	if err != nil || !strings.Contains(alone.Text(), "session 01a234f8-ca53 ·") {
		t.Errorf("a UUIDv7 shown alone: %v\n%s", err, alone.Text())
	}

	// UUIDv4s: 8 characters, unless a session shown with it is named by
	// them (which a call would take) or starts with them too. "7c7c7c7c"
	// first: once the UUID is stored, remembering it would add to the UUID
	for _, st := range [][2]string{
		{"5f0b8a2e-3c1d-4e7a-9b6f-1a2b3c4d5e6f", "the garden shed roof"},
		{"5f0b8a2e-ffff-4e7a-9b6f-1a2b3c4d5e6f", "a recipe for soup"}, // not shown
		{"7c7c7c7c", "the garden shed door"},
		{"7c7c7c7c-1111-4000-8000-000000000000", "the garden shed key"},
	} {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: st[0], SessionDate: "2023-05-01",
			Messages: []memory.Message{{Role: "user", Content: st[1]}}}); err != nil {
			t.Fatal(err)
		}
	}
	calls.Store(0)
	res, err = svc.Recall(bg, memory.RecallRequest{Query: "garden shed", Namespace: "n", K: 3, Fusion: memory.TextOnly})
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the recall looked session ids up %d times", n)
	}
	text = res.Text()
	for _, label := range []string{"5f0b8a2e", "7c7c7c7c", "7c7c7c7c-1"} {
		if !strings.Contains(text, "session "+label+" ·") {
			t.Errorf("no header names %s:\n%s", label, text)
		}
	}
	if ms, err := svc.Session(bg, "n", "7c7c7c7c-1"); err != nil || len(ms) != 1 || ms[0].Text != "the garden shed key" {
		t.Errorf("session 7c7c7c7c-1: %v, %v", ms, err)
	}
	// a start an unshown session shares is refused, naming both
	if _, err := svc.Session(bg, "n", "5f0b8a2e"); !errors.As(err, &fe) || !strings.Contains(fe.Msg, "3c1d") || !strings.Contains(fe.Msg, "ffff") {
		t.Errorf("session 5f0b8a2e, which an unshown session starts with too: %v", err)
	}
}

// The space of the best k shown whole counts their labels as shown: two
// sessions whose labels are longer than 8 characters are both returned
// by a recall of k = 2.
func TestLabelsCountInTheBestK(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "bestk"})
	for id, text := range map[string]string{
		"019a1b2c-3d4e-7f00-8000-000000000001": "Lisbon trams are yellow.",
		"019a1b2c-3d4f-7000-8000-000000000002": "Lisbon trams are old.",
	} {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: id, SessionDate: "2026-11-28",
			Messages: []memory.Message{{Role: "user", Content: text}}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "Lisbon trams", Namespace: "n", K: 2, Excerpt: memory.DefaultExcerpt, Fill: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 {
		t.Errorf("a recall of k = 2 returned %d memories:\n%s", len(res.Hits), res.Text())
	}
}

// A turn in a script written without spaces keeps to max_tokens, measured
// at about a token a character: a Chinese turn of 1,800 characters was
// shown whole at a budget of 100 tokens (it had no spaces to cut at, and
// was taken for 450 tokens).
func TestBudgetWithoutSpaces(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "cjk"})
	filler := strings.Repeat("今天天气很好，我们去公园散步，然后在咖啡馆喝了一杯咖啡。", 30)
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: "zh", SessionDate: "2026-11-02",
		Messages: []memory.Message{{Role: "user", Content: filler + "我妹妹的猫叫小花，它非常可爱。" + filler}}}); err != nil {
		t.Fatal(err)
	}
	const budget = 100
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "我妹妹的猫叫什么名字？", Namespace: "n", K: 10, MaxTokens: budget, Excerpt: memory.DefaultExcerpt, Fill: true})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if !strings.Contains(text, "小花") {
		t.Errorf("the answer is not shown:\n%s", text)
	}
	if n := utf8.RuneCountInString(text); n > budget+60 { // the header and the day line are ASCII
		t.Errorf("%d characters at a budget of %d tokens:\n%s", n, budget, text)
	}
}

// A first memory longer than max_tokens alone is shown as its part around
// the query's words, within the budget, also when the recall asks for
// memories whole (excerpt 0): the hooks' auto-recall asked for 800 tokens
// of whole memories and got a pasted log of 57 KB.
func TestMaxTokensFitsTheFirstMemory(t *testing.T) {
	svc := open(t, &fake.Embedder{Name: "fit"})
	var log strings.Builder
	for i := range 600 {
		fmt.Fprintf(&log, "line %d: request served in %d ms\n", i, i%37)
		if i == 300 {
			log.WriteString("note: the dentist appointment moved to December 3\n")
		}
	}
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "n", SessionID: "log", SessionDate: "2026-11-10",
		Messages: []memory.Message{{Role: "user", Content: log.String()}}}); err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{100, 800} {
		res, err := svc.Recall(bg, memory.RecallRequest{Query: "when is the dentist appointment?", Namespace: "n", K: 1, MaxTokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Text()
		if !strings.Contains(text, "dentist appointment moved") {
			t.Errorf("budget %d: the part that answers is not shown:\n%.300s", budget, text)
		}
		if n := (len(text) + 3) / 4; n > budget+budget/10+20 { // the header and day lines besides
			t.Errorf("budget %d: about %d tokens", budget, n)
		}
		if len(res.Passages) != 1 || len(res.Passages[0].Excerpt) != 1 || res.Passages[0].Excerpt[0] == "" {
			t.Errorf("budget %d: the memory is not marked as shown in part", budget)
		}
	}
	// a memory that fits is shown whole
	res, err := svc.Recall(bg, memory.RecallRequest{Query: "when is the dentist appointment?", Namespace: "n", K: 1, MaxTokens: 100000})
	if err != nil || !strings.Contains(res.Text(), "line 599:") {
		t.Errorf("at a budget it fits in, the memory is not whole (%v)", err)
	}
	// the turns a hit comes with are counted in the budget too: a short
	// answer whose neighbour is the long log
	if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: "c", SessionID: "ctx", SessionDate: "2026-11-11",
		Messages: []memory.Message{{Role: "user", Content: "The vet visit for Miso is on Friday."}, {Role: "assistant", Content: log.String()}}}); err != nil {
		t.Fatal(err)
	}
	res, err = svc.Recall(bg, memory.RecallRequest{Query: "when is the vet visit for Miso?", Namespace: "c", K: 1, Context: 1, MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Text(); !strings.Contains(text, "vet visit for Miso is on Friday") || (len(text)+3)/4 > 100+10+30 {
		t.Errorf("budget 100 with a long context turn: about %d tokens:\n%.400s", (len(text)+3)/4, text)
	}
}

// A session not found by a UUID's start shorter than a recall shows says
// how much of it to give.
func TestNotFoundSaysHowShortAnIDMayBe(t *testing.T) {
	short := (&memory.NotFoundError{What: "session", Name: "88a58b", In: "default"}).Error()
	if !strings.Contains(short, "first 8 characters or more") {
		t.Errorf("%q", short)
	}
	for _, name := range []string{"88a58ba5", "s-may"} {
		if got := (&memory.NotFoundError{What: "session", Name: name, In: "default"}).Error(); got != `session "`+name+`" not found in namespace "default"` {
			t.Errorf("%q", got)
		}
	}
}

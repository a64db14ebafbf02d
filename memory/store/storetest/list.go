package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
)

// listAndExport checks Namespaces, Sessions and Export on fresh storage,
// where the suite's other namespaces do not show.
func listAndExport(t *testing.T, open Open) {
	emb := &fake.Embedder{Name: "list", N: 16}
	st, err := open(emb.ID(), emb.Dims(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &suite{open: open, emb: emb, st: st}
	svc := s.service(t, st, emb)

	listNamespaces(t, st, svc)
	listSessions(t, st, svc)
	exportNamespaces(t, st, emb)
	listResumedSession(t, st, svc)
	exportLongSession(t, s, st, emb)
	listAfterDeleting(t, st)
}

// listNamespaces checks Namespaces on the empty store, then remembers
// list-a's two sessions and list-b's one and checks their counts and
// dates.
func listNamespaces(t *testing.T, st memory.Store, svc *memory.Service) {
	if ns, err := st.Namespaces(ctx); err != nil || len(ns) != 0 {
		t.Fatalf("namespaces of an empty store = %v, %v", ns, err)
	}
	remember(t, svc, "list-a", "s1", "2023-05-01", "first session opens with these words about a sailing trip", "and an answer", "and a third turn")
	if _, err := svc.Remember(ctx, memory.RememberRequest{Namespace: "list-a", SessionID: "s2", SessionDate: "2023-05-03T10:00:00Z", Messages: []memory.Message{
		{Role: "user", Speaker: "Caroline", Content: "second session", Timestamp: "2023-05-03T10:01:00Z", Key: "msg-1"},
		{Role: "assistant", Content: "noted"},
	}}); err != nil {
		t.Fatal(err)
	}
	remember(t, svc, "list-b", "s3", "2023-04-01", "only turn of list-b")

	ns, err := st.Namespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []memory.NamespaceInfo{
		{Name: "list-a", Memories: 5, Sessions: 2, First: day("2023-05-01"), Last: time.Date(2023, 5, 3, 10, 0, 0, 0, time.UTC)},
		{Name: "list-b", Memories: 1, Sessions: 1, First: day("2023-04-01"), Last: day("2023-04-01")},
	}
	if len(ns) != len(want) {
		t.Fatalf("namespaces = %+v, want %+v", ns, want)
	}
	for i := range want {
		g, w := ns[i], want[i]
		if g.Name != w.Name || g.Memories != w.Memories || g.Sessions != w.Sessions || !g.First.Equal(w.First) || !g.Last.Equal(w.Last) {
			t.Errorf("namespace %d = %+v, want %+v", i, g, w)
		}
	}
}

// listSessions checks Sessions over list-a: newest first, its summaries,
// pages, a date filter, an unknown namespace and a bad cursor, and the
// service's ErrNotFound for what does not exist.
func listSessions(t *testing.T, st memory.Store, svc *memory.Service) {
	page, err := st.Sessions(ctx, "list-a", memory.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sessionIDs(page.Sessions); !slices.Equal(got, []string{"s2", "s1"}) || page.Total != 2 || page.Next != "" {
		t.Fatalf("sessions = %v (total %d, next %q), want [s2 s1], newest first", got, page.Total, page.Next)
	}
	if s1 := page.Sessions[1]; s1.Turns != 3 || s1.Preview != "first session opens with these words about a sailing trip" || !s1.Date.Equal(day("2023-05-01")) || s1.Namespace != "list-a" {
		t.Errorf("s1 summary = %+v", s1)
	}
	first, err := st.Sessions(ctx, "list-a", memory.SessionFilter{Limit: 1})
	if err != nil || len(first.Sessions) != 1 || first.Sessions[0].ID != "s2" || first.Next == "" {
		t.Fatalf("first page of 1 = %+v, %v", first, err)
	}
	second, err := st.Sessions(ctx, "list-a", memory.SessionFilter{Limit: 1, Cursor: first.Next})
	if err != nil || sessionIDs(second.Sessions)[0] != "s1" || second.Next != "" {
		t.Fatalf("second page = %+v, %v", second, err)
	}
	after, err := st.Sessions(ctx, "list-a", memory.SessionFilter{After: day("2023-05-02")})
	if err != nil || !slices.Equal(sessionIDs(after.Sessions), []string{"s2"}) || after.Total != 2 {
		t.Errorf("sessions after 2023-05-02 = %+v, %v", after, err)
	}
	if none, err := st.Sessions(ctx, "no-such-ns", memory.SessionFilter{}); err != nil || none.Total != 0 || len(none.Sessions) != 0 {
		t.Errorf("sessions of an unknown namespace = %+v, %v", none, err)
	}
	var fe *memory.FieldError
	if _, err := st.Sessions(ctx, "list-a", memory.SessionFilter{Cursor: "not a cursor"}); !errors.As(err, &fe) || fe.Field != "cursor" {
		t.Errorf("a bad cursor: %v, want a FieldError naming cursor", err)
	}
	if _, err := svc.Sessions(ctx, memory.SessionsRequest{Namespace: "no-such-ns"}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("service sessions of an unknown namespace: %v, want ErrNotFound", err)
	}
	if _, err := svc.Session(ctx, "list-a", "no-such-session"); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("service session that does not exist: %v, want ErrNotFound", err)
	}
}

// exportNamespaces checks Export of list-a with vectors, of everything
// without them, and that a failing callback ends it with its error.
func exportNamespaces(t *testing.T, st memory.Store, emb *fake.Embedder) {
	var got []memory.Memory
	if err := st.Export(ctx, "list-a", true, func(m memory.Memory) error { got = append(got, m); return nil }); err != nil {
		t.Fatal(err)
	}
	if ids := memIDs(got); !slices.Equal(ids, []string{"s1:0", "s1:1", "s1:2", "s2:0", "s2:1"}) {
		t.Fatalf("export of list-a = %v", ids)
	}
	for _, m := range got {
		if len(m.Vectors) == 0 || len(m.Vectors[0]) != emb.Dims() || m.Embedder != emb.ID() || m.Hash == "" || m.Created.IsZero() {
			t.Errorf("exported %s lacks vectors, embedder, hash or created: %+v", m.ID, m)
		}
	}
	if c := got[3]; c.Key != "msg-1" || c.Speaker != "Caroline" || c.Timestamp == nil || !c.Timestamp.Equal(time.Date(2023, 5, 3, 10, 1, 0, 0, time.UTC)) {
		t.Errorf("exported s2:0 lost its key, speaker or timestamp: %+v", c)
	}
	got = got[:0]
	if err := st.Export(ctx, "", false, func(m memory.Memory) error { got = append(got, m); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 6 || got[5].Namespace != "list-b" || len(got[0].Vectors) != 0 {
		t.Errorf("export of everything without vectors = %d memories, last %+v", len(got), got[len(got)-1])
	}
	stop := errors.New("stop here")
	n := 0
	if err := st.Export(ctx, "", false, func(memory.Memory) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("export whose callback fails: %v after %d memories, want the callback's error after 1", err, n)
	}
}

// listResumedSession checks a session resumed weeks later: its last turn,
// dated by its own timestamp, makes its summary's Last, and a filter from
// a date after its start keeps it. It deletes list-r's sessions after.
func listResumedSession(t *testing.T, st memory.Store, svc *memory.Service) {
	if _, err := svc.Remember(ctx, memory.RememberRequest{Namespace: "list-r", SessionID: "r", SessionDate: "2023-03-01T09:00:00Z", Messages: []memory.Message{
		{Role: "user", Content: "started in March", Timestamp: "2023-03-01T09:00:00Z"},
		{Role: "user", Content: "back in May", Timestamp: "2023-05-10T09:00:00Z"},
	}}); err != nil {
		t.Fatal(err)
	}
	remember(t, svc, "list-r", "s", "2023-01-01", "a session after it in the walk, and before it in time")
	resumed, err := st.Sessions(ctx, "list-r", memory.SessionFilter{After: day("2023-05-01")})
	if err != nil || len(resumed.Sessions) != 1 || !resumed.Sessions[0].Date.Equal(time.Date(2023, 3, 1, 9, 0, 0, 0, time.UTC)) || !resumed.Sessions[0].Last.Equal(time.Date(2023, 5, 10, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("sessions of list-r after 2023-05-01 = %+v, %v; want the session begun in March, last in May", resumed, err)
	}
	if early, err := st.Sessions(ctx, "list-r", memory.SessionFilter{Before: day("2023-02-28")}); err != nil || !slices.Equal(sessionIDs(early.Sessions), []string{"s"}) {
		t.Errorf("sessions of list-r before 28 February = %+v, %v; want s alone, r began after", early, err)
	}
	if ns, err := st.Namespaces(ctx); err != nil || len(ns) < 3 || ns[2].Name != "list-r" || !ns[2].Last.Equal(time.Date(2023, 5, 10, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("namespaces = %+v, %v; want list-r last dated by its resumed turn", ns, err)
	}
	for _, session := range []string{"r", "s"} {
		if _, err := st.Delete(ctx, memory.Selector{Namespace: "list-r", SessionID: session}); err != nil {
			t.Fatal(err)
		}
	}
}

// exportLongSession checks that a session longer than any batch (list-c's
// 600 turns) streams out whole and in turn order.
func exportLongSession(t *testing.T, s *suite, st memory.Store, emb *fake.Embedder) {
	long := make([]memory.Memory, 600)
	for i := range long {
		long[i] = memory.Memory{ID: memory.MemoryID("long", i), Namespace: "list-c", SessionID: "long", SessionDate: clock, Turn: i,
			Role: "user", Text: fmt.Sprintf("turn %d", i), Hash: fmt.Sprintf("h%d", i), Created: clock,
			Embedder: emb.ID(), Vectors: [][]float32{s.unit([]float32{1, float32(i)})}}
	}
	if err := st.Put(ctx, long); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := st.Export(ctx, "list-c", false, func(m memory.Memory) error {
		if m.Turn != n {
			return fmt.Errorf("memory %d of the export is turn %d", n, m.Turn)
		}
		n++
		return nil
	})
	if err != nil || n != 600 {
		t.Errorf("export of a 600-turn session: %d memories, %v", n, err)
	}
}

// listAfterDeleting checks that deleting shows in the listings.
func listAfterDeleting(t *testing.T, st memory.Store) {
	if _, err := st.Delete(ctx, memory.Selector{Namespace: "list-a", IDs: []string{"s1:1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Delete(ctx, memory.Selector{Namespace: "list-b", SessionID: "s3"}); err != nil {
		t.Fatal(err)
	}
	ns, err := st.Namespaces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 2 || ns[0].Name != "list-a" || ns[0].Memories != 4 || ns[1].Name != "list-c" {
		t.Errorf("namespaces after deleting = %+v, want list-a with 4 memories and list-c", ns)
	}
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func sessionIDs(ss []memory.SessionInfo) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

func memIDs(ms []memory.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

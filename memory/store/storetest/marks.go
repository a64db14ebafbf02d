package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
)

// The marks of forgotten turns move with an export: exported from one
// store, imported into another of the same kind, they are that store's
// marks (it reads them back and exports them as the first did), and a
// resend of their sessions there stores none of the forgotten turns.
func marksMove(t *testing.T, from, to Open) {
	emb := &fake.Embedder{Name: "marks", N: 16}
	src, a := opened(t, from, emb)
	dst, b := opened(t, to, emb)
	fm, ok := dst.(memory.ForgottenMarks)
	if _, ok2 := src.(memory.ForgottenMarks); !ok || !ok2 {
		t.Fatalf("%T does not move the marks of forgotten turns (memory.ForgottenMarks): a move to another store forgets that they were forgotten", dst)
	}
	file := forgetAndExport(t, src, a)
	res, err := b.Import(ctx, func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }, memory.ImportOptions{})
	if err != nil || res.Imported != 6 || res.Marks != 5 || res.MarksSkipped != 0 || res.MarksNotKept != 0 {
		t.Fatalf("import = %+v, %v; want 6 memories and 5 marks stored", res, err)
	}
	for _, sess := range [][2]string{{"marks", "s1"}, {"marks", "s2"}, {"marks", "s3"}, {"marks-b", "s4"}} {
		want, _ := src.(memory.ForgottenTurns).ForgottenTurns(ctx, sess[0], sess[1])
		got, err := fm.ForgottenTurns(ctx, sess[0], sess[1])
		if err != nil || !slices.EqualFunc(got, want, sameMark) {
			t.Errorf("marks of %s/%s after the import = %+v, %v; want %+v", sess[0], sess[1], got, err, want)
		}
	}
	if again := exportAll(t, b, memory.ExportOptions{}); again != file {
		t.Errorf("the import exports as\n%s\nwant\n%s", again, file)
	}
	if ids, err := dst.SessionIDs(ctx, "marks", "s", 10); err != nil || !slices.Equal(ids, []string{"s1", "s2", "s3"}) {
		t.Errorf("session ids after the import = %v, %v; want s2, which holds only marks, too", ids, err)
	}
	resendForgotten(t, b)
	res, err = b.Import(ctx, func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(file)), nil }, memory.ImportOptions{})
	if err != nil || res.Imported != 0 || res.Marks != 0 || res.MarksSkipped != 5 {
		t.Errorf("the same file again = %+v, %v; want nothing stored, 5 marks already held", res, err)
	}
	markWhereAMemoryIs(t, fm)
	marksOfALongSession(t, src, emb)
}

// opened opens a store and its service.
func opened(t *testing.T, open Open, emb *fake.Embedder) (memory.Store, *memory.Service) {
	t.Helper()
	st, err := open(emb.ID(), emb.Dims(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &suite{open: open, emb: emb, st: st}
	return st, s.service(t, st, emb)
}

// forgetAndExport fills a store, forgets in it a turn by its id (s1:0,
// which has a message id), a session whole (s2, which then holds only
// marks) and a turn of another namespace (marks-b's s4:2), and returns
// its export, which it checks: version 3, the marks where the turns were,
// no text of theirs.
func forgetAndExport(t *testing.T, st memory.Store, svc *memory.Service) string {
	f := &forgetting{s: &suite{st: st, svc: svc}, t: t, ns: "marks"}
	f.remember("s1", keyed(says...), nil)
	f.remember("s2", msgs(says...), nil)
	f.remember("s3", msgs("a session", "kept whole"), nil)
	f.forget("s1:0")
	if res, err := svc.Forget(ctx, memory.ForgetRequest{Namespace: "marks", SessionID: "s2"}); err != nil || res.Deleted != 3 {
		t.Fatalf("forget session s2 = %+v, %v", res, err)
	}
	g := &forgetting{s: f.s, t: t, ns: "marks-b"}
	g.remember("s4", msgs("one", "two", "my card number is 4929"), nil)
	g.forget("s4:2")
	file := exportAll(t, svc, memory.ExportOptions{})
	lines := strings.Split(strings.TrimSpace(file), "\n")
	var kinds []string
	for _, l := range lines[1 : len(lines)-1] {
		var line struct {
			SessionID string           `json:"session_id"`
			Forgotten *memory.MarkLine `json:"forgotten"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		kind := "memory " + line.SessionID
		if line.Forgotten != nil {
			kind = "mark " + line.Forgotten.SessionID
		}
		kinds = append(kinds, kind)
	}
	want := []string{"mark s1", "memory s1", "memory s1", "mark s2", "mark s2", "mark s2", "memory s3", "memory s3", "memory s4", "memory s4", "mark s4"}
	if !strings.Contains(lines[0], `"version":3`) || !slices.Equal(kinds, want) || lines[len(lines)-1] != `{"end":"agentmem-export","memories":6,"sessions":4,"marks":5}` {
		t.Fatalf("export of a store with marks: lines %v, want %v\n%s", kinds, want, file)
	}
	if strings.Contains(file, "4512") || strings.Contains(file, "4929") {
		t.Fatalf("the export holds the text of a forgotten turn:\n%s", file)
	}
	return file
}

func exportAll(t *testing.T, svc *memory.Service, opts memory.ExportOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := svc.Export(ctx, &buf, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func sameMark(a, b memory.Memory) bool {
	return a.ID == b.ID && a.Namespace == b.Namespace && a.SessionID == b.SessionID && a.Turn == b.Turn && a.Key == b.Key && a.Hash == b.Hash
}

// resendForgotten sends forgetAndExport's sessions again to the store
// that imported them: none of their forgotten turns is stored.
func resendForgotten(t *testing.T, svc *memory.Service) {
	f := &forgetting{s: &suite{svc: svc}, t: t, ns: "marks"}
	if r := f.remember("s1", keyed(says...), nil); r.Stored != 0 || r.Forgotten != 1 {
		t.Errorf("s1 resent with its message ids = %+v, want nothing stored, 1 forgotten", r)
	}
	if r := f.remember("s2", msgs(says...), nil); r.Stored != 0 || r.Forgotten != 3 {
		t.Errorf("s2, forgotten whole, resent = %+v, want nothing stored, 3 forgotten", r)
	}
	g := &forgetting{s: f.s, t: t, ns: "marks-b"}
	if r := g.remember("s4", msgs("one", "two", "my card number is 4929"), nil); r.Stored != 0 || r.Forgotten != 1 {
		t.Errorf("s4 resent = %+v, want nothing stored, 1 forgotten", r)
	}
}

// markWhereAMemoryIs checks MarkForgotten on its own: a mark at a turn
// the session holds is left out, and one at a marked turn replaces it.
func markWhereAMemoryIs(t *testing.T, fm memory.ForgottenMarks) {
	mark := func(turn int, hash string) memory.Memory {
		return memory.Memory{ID: memory.MemoryID("s3", turn), Namespace: "marks", SessionID: "s3", Turn: turn, Hash: hash}
	}
	if err := fm.MarkForgotten(ctx, "marks", "s3", []memory.Memory{mark(0, "a"), mark(2, "b")}); err != nil {
		t.Fatal(err)
	}
	if err := fm.MarkForgotten(ctx, "marks", "s3", []memory.Memory{mark(2, "c")}); err != nil {
		t.Fatal(err)
	}
	got, err := fm.ForgottenTurns(ctx, "marks", "s3")
	if err != nil || !slices.EqualFunc(got, []memory.Memory{mark(2, "c")}, sameMark) {
		t.Errorf("marks of s3 = %+v, %v; want turn 2's alone (turn 0 is stored), with the hash it was marked with last", got, err)
	}
	if err := fm.MarkForgotten(ctx, "marks", "s3", []memory.Memory{{ID: "s9:0", Namespace: "marks", SessionID: "s9"}}); err == nil {
		t.Error("MarkForgotten took a mark of another session")
	}
}

// marksOfALongSession checks that ExportForgotten hands out each session's
// marks in one call, in turn order, when they are more than one read's
// batch (600), and a store's marks of each namespace apart.
func marksOfALongSession(t *testing.T, st memory.Store, emb *fake.Embedder) {
	s := &suite{emb: emb}
	long := make([]memory.Memory, 600)
	for i := range long {
		long[i] = memory.Memory{ID: memory.MemoryID("long", i), Namespace: "marks-c", SessionID: "long", SessionDate: clock, Turn: i,
			Role: "user", Text: fmt.Sprintf("turn %d", i), Hash: fmt.Sprintf("h%d", i), Created: clock,
			Embedder: emb.ID(), Vectors: [][]float32{s.unit([]float32{1, float32(i)})}}
	}
	if err := st.Put(ctx, long); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Delete(ctx, memory.Selector{Namespace: "marks-c", SessionID: "long"}); err != nil {
		t.Fatal(err)
	}
	var calls [][]memory.Memory
	err := st.(memory.ForgottenMarks).ExportForgotten(ctx, "marks-c", func(ms []memory.Memory) error { calls = append(calls, ms); return nil })
	if err != nil || len(calls) != 1 || len(calls[0]) != 600 || !slices.IsSortedFunc(calls[0], func(a, b memory.Memory) int { return a.Turn - b.Turn }) || calls[0][599].Hash != "h599" {
		t.Fatalf("export of the marks of a 600-turn session forgotten whole: %d calls, %v", len(calls), err)
	}
	calls = nil
	if err := st.(memory.ForgottenMarks).ExportForgotten(ctx, "", func(ms []memory.Memory) error { calls = append(calls, ms); return nil }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ms := range calls {
		got = append(got, ms[0].Namespace+"/"+ms[0].SessionID)
	}
	if !slices.Equal(got, []string{"marks/s1", "marks/s2", "marks-b/s4", "marks-c/long"}) {
		t.Errorf("the sessions of every namespace's marks = %v", got)
	}
}

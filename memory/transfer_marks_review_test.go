package memory_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// openPlain is open (no embedder) that returns the store too.
func openPlain(t *testing.T) (*memory.Service, memory.Store) {
	t.Helper()
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

// A namespace whose every session was forgotten holds only marks: export
// --ns names it as any other, and its marks move (an export of every
// namespace carries them; one that names it refused it as a namespace
// that does not exist, and a move namespace by namespace lost them).
func TestExportOfANamespaceThatHoldsOnlyMarks(t *testing.T) {
	src := open(t, nil)
	fill(t, src)
	carol := pin
	carol.Namespace = "carol"
	if _, err := src.Remember(bg, carol); err != nil {
		t.Fatal(err)
	}
	if res, err := src.Forget(bg, memory.ForgetRequest{Namespace: "carol", SessionID: "bank"}); err != nil || res.Deleted != 3 {
		t.Fatalf("forget = %+v, %v", res, err)
	}
	var buf bytes.Buffer
	all, err := src.Export(bg, &bytes.Buffer{}, memory.ExportOptions{})
	if err != nil || all.Marks != 3 || all.Namespaces != 3 {
		t.Fatalf("export = %+v, %v; want carol's 3 marks, and carol counted among 3 namespaces (fill stores 2)", all, err)
	}
	res, err := src.Export(bg, &buf, memory.ExportOptions{Namespaces: []string{"carol"}})
	if err != nil || res.Marks != 3 || res.Memories != 0 || res.Namespaces != 1 {
		t.Fatalf("export --ns carol = %+v, %v; want its 3 marks, of 1 namespace", res, err)
	}
	if file := buf.String(); !strings.Contains(file, `"version":3`) || strings.Contains(file, "alice") || strings.Contains(file, "4512") {
		t.Fatalf("export --ns carol:\n%s", file)
	}
	dst := open(t, nil)
	if res, err := dst.Import(bg, textOpener(buf.String()), memory.ImportOptions{}); err != nil || res.Marks != 3 {
		t.Fatalf("import = %+v, %v", res, err)
	}
	if again, err := dst.Remember(bg, carol); err != nil || again.Stored != 0 || again.Forgotten != 3 {
		t.Errorf("the session resent after the move = %+v, %v; want nothing stored", again, err)
	}
	// a namespace that holds neither memories nor marks is still refused
	var nf *memory.NotFoundError
	if _, err := src.Export(bg, &bytes.Buffer{}, memory.ExportOptions{Namespaces: []string{"nobody"}}); !errors.As(err, &nf) {
		t.Errorf("export --ns nobody: %v, want a NotFoundError", err)
	}
}

// A mark at a turn the store holds with other content is not that turn:
// it was counted as "left out: this store holds the turn itself", the
// forgotten turn was then stored again by a resend, and the summary told
// the user otherwise. It is refused, as a memory line at a turn the store
// holds with other content is.
func TestImportedMarkWhereTheStoreHoldsAnotherTurn(t *testing.T) {
	file := pinForgotten(t, nil)
	dst := open(t, nil)
	other := pin
	other.Messages = append([]memory.Message{{Role: "user", Content: "Something else entirely."}}, pin.Messages[1:]...)
	if _, err := dst.Remember(bg, other); err != nil {
		t.Fatal(err)
	}
	res, err := dst.Import(bg, textOpener(file), memory.ImportOptions{})
	var le *memory.LineError
	if !errors.As(err, &le) || le.Line != 2 || le.Field != "forgotten.hash" || !strings.Contains(err.Error(), "other content") {
		again, _ := dst.Remember(bg, pin)
		t.Fatalf("import = %+v, %v; want line 2 refused (forgotten.hash); a resend then stored %d turns (%v)", res, err, again.Stored, again.IDs)
	}
}

// A mark whose message id the store holds as a memory of the session at
// another turn: the store holds that very turn. It is left out and said
// (MarksLive), as at its own turn; it was written beside the memory, a
// message id twice in its session, and the summary did not say that the
// forgotten turn is stored here.
func TestImportedMarkWhoseKeyTheStoreHolds(t *testing.T) {
	keyed := pin
	keyed.Messages = append([]memory.Message(nil), pin.Messages...)
	keyed.Messages[0].Key = "k-pin"
	src := open(t, nil)
	if _, err := src.Remember(bg, keyed); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Forget(bg, memory.ForgetRequest{Namespace: "alice", IDs: []string{"bank:0"}}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := src.Export(bg, &buf, memory.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	dst, st := openPlain(t)
	held := memory.Memory{ID: "bank:3", Namespace: "alice", SessionID: "bank", SessionDate: clock, Turn: 3, Role: "user",
		Text: pin.Messages[0].Content, Key: "k-pin", Hash: strings.Repeat("ab", 16), Created: clock}
	if err := st.Put(bg, []memory.Memory{held}); err != nil {
		t.Fatal(err)
	}
	res, err := dst.Import(bg, textOpener(buf.String()), memory.ImportOptions{})
	if err != nil || res.Marks != 0 || res.MarksLive != 1 || res.Imported != 2 {
		t.Fatalf("import = %+v, %v; want the mark left out and said (MarksLive): the store holds k-pin at bank:3", res, err)
	}
	if marks, err := st.(memory.ForgottenTurns).ForgottenTurns(bg, "alice", "bank"); err != nil || len(marks) != 0 {
		t.Errorf("marks of bank = %+v, %v; want none beside the memory of the same message id", marks, err)
	}
}

// A mark that keeps its position alone (a damaged mark, as a salvaging
// export writes it) at a turn the store marks with its message id and
// content says nothing the store's does not: it is skipped, not refused
// as a mark of other content (which refused the whole import).
func TestImportedPositionOnlyMarkMeetsTheStoresMark(t *testing.T) {
	file := pinForgotten(t, nil)
	dst := open(t, nil)
	if _, err := dst.Import(bg, textOpener(file), memory.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(file, "\n")
	lines = lines[:len(lines)-1]
	mark := lines[1]
	bare := mark[:strings.Index(mark, `,"hash":"`)] + "}}\n"
	res, err := dst.Import(bg, textOpener(edit(lines, 1, mark, bare)), memory.ImportOptions{})
	if err != nil || res.MarksSkipped != 1 || res.Marks != 0 {
		t.Fatalf("import of the mark without its hash = %+v, %v; want it skipped: the store's mark says more", res, err)
	}
	if again, err := dst.Remember(bg, pin); err != nil || again.Stored != 0 {
		t.Errorf("resend = %+v, %v; want nothing stored", again, err)
	}
}

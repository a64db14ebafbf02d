package memory_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
)

// pin is a session whose first turn the user forgets.
var pin = memory.RememberRequest{Namespace: "alice", SessionID: "bank", SessionDate: "2023-05-07", Messages: []memory.Message{
	{Role: "user", Content: "My bank PIN is 4512, remind me if I forget it."},
	{Role: "assistant", Content: "Noted, I will remind you."},
	{Role: "user", Content: "Also book the dentist for Friday."},
}}

// openIn returns a service over a new embedded store in dir, and the store.
func openIn(t *testing.T, dir string, emb memory.Embedder) (*memory.Service, memory.Store) {
	t.Helper()
	st, err := embedded.Open(bg, dir, embedded.Options{EmbedderID: emb.ID(), Dims: emb.Dims(), Recipe: memory.RecipeOf(emb), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Embedder: emb, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

// pinForgotten is the export of a store that holds pin with its PIN
// forgotten, and bob's session, which holds no mark.
func pinForgotten(t *testing.T, emb memory.Embedder) string {
	t.Helper()
	src := open(t, emb)
	fill(t, src)
	if _, err := src.Remember(bg, pin); err != nil {
		t.Fatal(err)
	}
	if res, err := src.Forget(bg, memory.ForgetRequest{Namespace: "alice", IDs: []string{"bank:0"}}); err != nil || res.Deleted != 1 {
		t.Fatalf("forget = %+v, %v", res, err)
	}
	var buf bytes.Buffer
	res, err := src.Export(bg, &buf, memory.ExportOptions{Version: "test"})
	if err != nil || res.Memories != 9 || res.Marks != 1 {
		t.Fatalf("export = %+v, %v; want 9 memories and 1 mark", res, err)
	}
	return buf.String()
}

// A turn forgotten before a move stays forgotten after it: the export
// carries its mark (version 3, no text), the import into a new data dir
// writes it, a resend of the session there does not store the turn again,
// and agentmem check finds the new store sound.
func TestRoundTripKeepsForgottenTurnsForgotten(t *testing.T) {
	emb := &fake.Embedder{Name: "marks"}
	file := pinForgotten(t, emb)
	lines := strings.Split(strings.TrimSpace(file), "\n")
	if !strings.HasPrefix(lines[0], `{"format":"agentmem-export","version":3,`) || lines[len(lines)-1] != `{"end":"agentmem-export","memories":9,"sessions":4,"marks":1}` {
		t.Fatalf("export of a store with a forgotten turn:\n%s", file)
	}
	if want := `{"forgotten":{"namespace":"alice","session_id":"bank","turn":0,"id":"bank:0","hash":"`; !strings.HasPrefix(lines[1], want) || strings.Contains(file, "4512") {
		t.Fatalf("the mark's line = %s, want it first and without the turn's text", lines[1])
	}
	dir := t.TempDir()
	dst, st := openIn(t, dir, emb)
	res, err := dst.Import(bg, textOpener(file), memory.ImportOptions{})
	if err != nil || res.Imported != 9 || res.Marks != 1 {
		t.Fatalf("import = %+v, %v; want 9 memories and 1 mark", res, err)
	}
	again, err := dst.Remember(bg, pin)
	if err != nil || again.Stored != 0 || again.Forgotten != 1 || again.IDs[0] != "bank:0" {
		t.Fatalf("the session resent after the move = %+v, %v; want the PIN not stored again", again, err)
	}
	if r, err := dst.Recall(bg, memory.RecallRequest{Namespace: "alice", Query: "bank PIN", K: 10}); err != nil || strings.Contains(hitsString(r), "bank:0") {
		t.Errorf("recall after the resend = %s, %v", hitsString(r), err)
	}
	st.Close()
	if rep, err := embedded.Check(bg, dir); err != nil || !rep.OK() {
		t.Errorf("check of the store imported into = %+v, %v", rep, err)
	}
}

// An export that holds no mark is version 2, as before marks, which the
// agentmem before them reads; so is one of namespaces that hold none, of
// a store whose other namespaces do. A version 2 file is read as before.
func TestExportWithoutMarksIsVersion2(t *testing.T) {
	src := open(t, nil)
	fill(t, src)
	if _, err := src.Remember(bg, pin); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Forget(bg, memory.ForgetRequest{Namespace: "alice", IDs: []string{"bank:0"}}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := src.Export(bg, &buf, memory.ExportOptions{Namespaces: []string{"bob"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if !strings.HasPrefix(lines[0], `{"format":"agentmem-export","version":2,`) || lines[len(lines)-1] != `{"end":"agentmem-export","memories":1,"sessions":1}` {
		t.Fatalf("export of a namespace without marks:\n%s", buf.String())
	}
	res, err := open(t, nil).Import(bg, textOpener(buf.String()), memory.ImportOptions{})
	if err != nil || res.Imported != 1 || res.Marks != 0 {
		t.Errorf("import of a version 2 file = %+v, %v", res, err)
	}
}

// A mark line that is not right names its line and field, and nothing is
// stored; so does a file cut short among marks, or an end that counts
// them wrong.
func TestImportRefusesBadMarks(t *testing.T) {
	file := pinForgotten(t, nil)
	lines := strings.SplitAfter(file, "\n")
	lines = lines[:len(lines)-1]
	// 1 header, 2 bank:0's mark, 3-4 bank, 5-7 s-june, 8-10 s-may, 11 b1, 12 end
	head, mark, body := lines[0], lines[1], lines[2:len(lines)-1]
	hash := mark[strings.Index(mark, `"hash":"`)+8 : strings.Index(mark, `"}}`)]
	v2 := strings.Replace(head, `"version":3`, `"version":2`, 1)
	cases := []refusal{
		{"turn of the wrong type", edit(lines, 1, `"turn":0`, `"turn":"zero"`), 2, "forgotten.turn", "must be a JSON number"},
		{"turn missing", edit(lines, 1, `"turn":0,`, ""), 2, "forgotten.turn", "is missing"},
		{"turn out of range", edit(lines, 1, `"turn":0`, `"turn":-1`), 2, "forgotten.turn", "must be between 0 and"},
		{"id that is not session:turn", edit(lines, 1, `"id":"bank:0"`, `"id":"bank:7"`), 2, "forgotten.id", "must be session_id:turn"},
		{"bad namespace", edit(lines, 1, `"namespace":"alice"`, `"namespace":"a b"`), 2, "forgotten.namespace", "has the character"},
		{"bad hash", edit(lines, 1, hash, "not-a-hash"), 2, "forgotten.hash", "hexadecimal"},
		{"key of two lines", edit(lines, 1, `"hash"`, `"key":"k\u000a2","hash"`), 2, "forgotten.key", "printable"},
		{"text in a mark", edit(lines, 1, `"hash"`, `"text":"my PIN","hash"`), 2, "forgotten.text", "not a field of the agentmem export format"},
		{"a field beside forgotten", edit(lines, 1, `}}`, `},"text":"my PIN"}`), 2, "text", "not a field of the agentmem export format"},
		{"forgotten not an object", head + `{"forgotten":"bank:0"}` + "\n", 2, "forgotten", "must be a JSON object"},
		{"the same turn marked twice", edit(lines, 1, "\n", "\n"+mark), 3, "forgotten.turn", "also marked forgotten at line 2"},
		{"a mark apart from its session", head + strings.Join(body[:5], "") + mark + strings.Join(lines[7:], ""), 7, "forgotten.session_id", "appears again"},
		{"a mark's key a memory's", edit(strings.SplitAfter(edit(lines, 2, `"role"`, `"key":"k1","role"`), "\n"), 1, `"hash"`, `"key":"k1","hash"`), 2, "forgotten.key", `"k1" is also the key at line 3`},
		{"a mark in a version 2 file", v2 + strings.Join(lines[1:len(lines)-1], "") + `{"end":"agentmem-export","memories":9,"sessions":4}` + "\n", 2, "forgotten", "from format version 3 on"},
		{"marks counted in a version 2 end", v2 + strings.Join(body, "") + `{"end":"agentmem-export","memories":9,"sessions":4,"marks":0}` + "\n", 11, "marks", "is not a field of the end of a version 2 export"},
		{"a mark missing before the end", head + strings.Join(body, "") + lines[len(lines)-1], 11, "marks", "counts 1 marks of forgotten turns, the file holds 0"},
		{"an end that does not count marks", strings.Join(lines[:len(lines)-1], "") + `{"end":"agentmem-export","memories":9,"sessions":4}` + "\n", 12, "marks", "is missing"},
		{"cut short after a mark", head + mark, 2, "", "cut short, after 0 memories and 1 mark of a forgotten turn"},
		{"cut short after marks and memories", strings.Join(lines[:4], ""), 4, "", "cut short, after 2 memories and 1 mark of a forgotten turn"},
	}
	refused(t, nil, cases)
}

// edit is lines, joined, with line i's old replaced by new.
func edit(lines []string, i int, old, new string) string {
	ls := append([]string(nil), lines...)
	if !strings.Contains(ls[i], old) {
		panic(fmt.Sprintf("line %d %q lacks %q", i+1, ls[i], old))
	}
	ls[i] = strings.Replace(ls[i], old, new, 1)
	return strings.Join(ls, "")
}

// noMarks is a store whose marks of forgotten turns do not move.
type noMarks struct{ memory.Store }

// A mark meets what the store holds: at a turn the store holds, it is
// left out (the memory wins), and said so; at a turn the store marks with
// another content, it is refused; a store that keeps no marks imports the
// memories and says that the marks were not kept; a dry run counts them;
// a mark at a turn of a memory line of the file is left out.
func TestImportedMarksMeetTheStore(t *testing.T) {
	file := pinForgotten(t, nil)
	t.Run("the store holds the turn", func(t *testing.T) {
		dst := open(t, nil)
		if _, err := dst.Remember(bg, pin); err != nil {
			t.Fatal(err)
		}
		res, err := dst.Import(bg, textOpener(file), memory.ImportOptions{})
		if err != nil || res.Marks != 0 || res.MarksLive != 1 || res.Imported != 7 {
			t.Fatalf("import = %+v, %v; want the mark left out where the store holds the turn", res, err)
		}
		if ms, _ := dst.Session(bg, "alice", "bank"); len(ms) != 3 {
			t.Errorf("session bank after the import = %+v, want its 3 turns", ms)
		}
	})
	t.Run("the store marks the turn otherwise", func(t *testing.T) {
		dst := open(t, nil)
		other := pin
		other.Messages = []memory.Message{{Role: "user", Content: "something else"}}
		if _, err := dst.Remember(bg, other); err != nil {
			t.Fatal(err)
		}
		if _, err := dst.Forget(bg, memory.ForgetRequest{Namespace: "alice", IDs: []string{"bank:0"}}); err != nil {
			t.Fatal(err)
		}
		_, err := dst.Import(bg, textOpener(file), memory.ImportOptions{})
		var le *memory.LineError
		if !errors.As(err, &le) || le.Line != 2 || le.Field != "forgotten.hash" || !strings.Contains(err.Error(), "already marked forgotten") {
			t.Fatalf("error = %v, want line 2 naming forgotten.hash", err)
		}
		if ns, _ := dst.Namespaces(bg); len(ns) != 0 {
			t.Errorf("a refused import stored %+v", ns)
		}
	})
	t.Run("a store that keeps no marks", func(t *testing.T) {
		st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		svc, err := memory.New(memory.Options{Store: noMarks{st}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := svc.Import(bg, textOpener(file), memory.ImportOptions{})
		if err != nil || res.Imported != 9 || res.Marks != 0 || res.MarksNotKept != 1 {
			t.Fatalf("import into a store that keeps no marks = %+v, %v; want the mark counted as not kept", res, err)
		}
	})
	t.Run("dry run", func(t *testing.T) {
		dst := open(t, nil)
		res, err := dst.Import(bg, textOpener(file), memory.ImportOptions{DryRun: true})
		if err != nil || res.Marks != 1 || res.Imported != 9 {
			t.Fatalf("dry run = %+v, %v", res, err)
		}
		if again, err := dst.Import(bg, textOpener(file), memory.ImportOptions{DryRun: true}); err != nil || again.Marks != 1 {
			t.Errorf("a dry run stored the mark: %+v, %v", again, err)
		}
	})
	t.Run("a mark at a memory line's turn", func(t *testing.T) {
		lines := strings.SplitAfter(file, "\n")
		lines = lines[:len(lines)-1]
		moot := strings.NewReplacer(`"turn":0`, `"turn":1`, `"id":"bank:0"`, `"id":"bank:1"`).Replace(lines[1])
		f := edit(lines, 1, "\n", "\n"+moot)
		f = strings.Replace(f, `"marks":1}`, `"marks":2}`, 1)
		res, err := open(t, nil).Import(bg, textOpener(f), memory.ImportOptions{})
		if err != nil || res.Marks != 1 || res.Imported != 9 {
			t.Fatalf("import = %+v, %v; want the mark at bank:1, which the file holds, left out", res, err)
		}
	})
}

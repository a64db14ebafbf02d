package memory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
)

var bg = context.Background()

var clock = time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)

// open returns a service over a new embedded store in a fresh directory.
func open(t testing.TB, emb memory.Embedder) *memory.Service {
	t.Helper()
	id, dims := "", 0
	if emb != nil {
		id, dims = emb.ID(), emb.Dims()
	}
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{EmbedderID: id, Dims: dims, Recipe: memory.RecipeOf(emb), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Embedder: emb, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func fill(t *testing.T, svc *memory.Service) {
	t.Helper()
	sessions := []memory.RememberRequest{
		{Namespace: "alice", SessionID: "s-may", SessionDate: "1:56 pm on 8 May, 2023", Messages: []memory.Message{
			{Role: "user", Speaker: "Alice", Content: "Yesterday I went to the Nordstrom friends and family sale.", Key: "m1"},
			{Role: "assistant", Content: "Did you find anything nice?"},
			{Role: "user", Speaker: "Alice", Content: "A blue raincoat for the trip to Portland.", Timestamp: "2023-05-08T14:00:00+02:00"},
		}},
		{Namespace: "alice", SessionID: "s-june", SessionDate: "2023-06-02", Messages: []memory.Message{
			{Role: "user", Content: "My daughter started violin lessons on Tuesday."},
			{Role: "assistant", Content: "How exciting, which teacher?"},
			{Role: "user", Content: "Mrs Lindqvist from the music school."},
		}},
		{Namespace: "bob", SessionID: "b1", SessionDate: "2023-01-15", Messages: []memory.Message{
			{Role: "user", Content: "I adopted a cat named Pixel."},
		}},
	}
	for _, r := range sessions {
		if _, err := svc.Remember(bg, r); err != nil {
			t.Fatal(err)
		}
	}
}

var queries = []memory.RecallRequest{
	{Query: "When did Alice go to the Nordstrom sale?", Namespace: "alice"},
	{Query: "what instrument does the kid learn", Namespace: "alice"},
	{Query: "raincoat Portland", Namespace: "alice", Fusion: memory.VectorOnly},
	{Query: "pet cat", Namespace: "bob"},
	{Query: "music teacher", Namespace: "alice", Fusion: memory.RSF, Order: memory.Chronological},
}

func recallAll(t *testing.T, svc *memory.Service) []memory.RecallResult {
	t.Helper()
	var out []memory.RecallResult
	for _, q := range queries {
		q.K = 10
		res, err := svc.Recall(bg, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Hits {
			res.Hits[i].Memory.Vectors = nil
		}
		out = append(out, res)
	}
	return out
}

func export(t *testing.T, svc *memory.Service, opts memory.ExportOptions) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memories.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := svc.Export(bg, f, opts); err != nil {
		t.Fatal(err)
	}
	return path
}

func fileOpener(path string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return os.Open(path) }
}

func textOpener(s string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }
}

// Export, then import into a new data dir: the same namespaces, sessions
// and recall results, with the file's vectors or embedded again; the same
// file twice stores nothing twice.
func TestRoundTripGivesIdenticalRecall(t *testing.T) {
	emb := &fake.Embedder{Name: "rt", Synonyms: map[string]string{"instrument": "violin", "kid": "daughter"}}
	src := open(t, emb)
	fill(t, src)
	want := recallAll(t, src)
	wantNS, _ := src.Namespaces(bg)

	for _, vectors := range []bool{true, false} {
		t.Run(fmt.Sprintf("vectors=%v", vectors), func(t *testing.T) {
			path := export(t, src, memory.ExportOptions{Vectors: vectors, Version: "test"})
			dst := open(t, emb)
			calls := emb.Calls.Load()
			var last [2]int
			res, err := dst.Import(bg, fileOpener(path), memory.ImportOptions{Progress: func(d, n int) { last = [2]int{d, n} }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Imported != 7 || res.Sessions != 3 || res.Skipped != 0 || last != [2]int{7, 7} {
				t.Errorf("import = %+v, last progress %v", res, last)
			}
			if vectors && (res.Reembedded != 0 || emb.Calls.Load() != calls) {
				t.Errorf("import with vectors embedded again: %+v", res)
			}
			if !vectors && res.Reembedded != 7 {
				t.Errorf("import without vectors re-embedded %d memories, want 7", res.Reembedded)
			}
			if got := recallAll(t, dst); !reflect.DeepEqual(got, want) {
				t.Errorf("recall after the round trip differs:\n got %+v\nwant %+v", got, want)
			}
			if ns, _ := dst.Namespaces(bg); !reflect.DeepEqual(ns, wantNS) {
				t.Errorf("namespaces after the round trip = %+v, want %+v", ns, wantNS)
			}
			again, err := dst.Import(bg, fileOpener(path), memory.ImportOptions{})
			if err != nil || again.Imported != 0 || again.Skipped != 7 {
				t.Errorf("the same file again = %+v, %v; want nothing imported, 7 skipped", again, err)
			}
			if got := recallAll(t, dst); !reflect.DeepEqual(got, want) {
				t.Errorf("recall after importing twice differs")
			}
		})
	}

	t.Run("another embedder", func(t *testing.T) {
		path := export(t, src, memory.ExportOptions{Vectors: true, Namespaces: []string{"bob"}})
		other := &fake.Embedder{Name: "other", N: 32}
		dst := open(t, other)
		res, err := dst.Import(bg, fileOpener(path), memory.ImportOptions{})
		if err != nil || res.Imported != 1 || res.Reembedded != 1 {
			t.Fatalf("import into a store of another embedder = %+v, %v", res, err)
		}
		r, err := dst.Recall(bg, memory.RecallRequest{Query: "cat named Pixel", Namespace: "bob", K: 5, Fusion: memory.VectorOnly})
		if err != nil || len(r.Hits) != 1 {
			t.Errorf("vector recall after re-embedding = %+v, %v", r, err)
		}
	})
}

// A dry run checks the file against the store, counts what an import
// would do, and stores nothing.
func TestImportDryRun(t *testing.T) {
	emb := &fake.Embedder{Name: "dry"}
	src := open(t, emb)
	fill(t, src)
	path := export(t, src, memory.ExportOptions{Namespaces: []string{"alice"}})
	dst := open(t, emb)
	dry := memory.ImportOptions{DryRun: true, Progress: func(int, int) { t.Error("a dry run reported progress") }}
	res, err := dst.Import(bg, fileOpener(path), dry)
	if want := (memory.ImportResult{Sessions: 2, Imported: 6, Reembedded: 6, DryRun: true}); err != nil || res != want {
		t.Errorf("dry run = %+v, %v; want %+v", res, err, want)
	}
	if ns, _ := dst.Namespaces(bg); len(ns) != 0 {
		t.Fatalf("a dry run stored %+v", ns)
	}
	if _, err := dst.Import(bg, fileOpener(path), memory.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if res, err := dst.Import(bg, fileOpener(path), dry); err != nil || res.Imported != 0 || res.Skipped != 6 {
		t.Errorf("dry run of a file already imported = %+v, %v", res, err)
	}
	var le *memory.LineError
	if _, err := open(t, emb).Import(bg, textOpener(`{"format":"agentmem-export","version":1}`+"\n{}"), dry); !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("dry run of a bad line: %v", err)
	}
}

func TestExportErrors(t *testing.T) {
	svc := open(t, nil)
	fill(t, svc)
	var nf *memory.NotFoundError
	if _, err := svc.Export(bg, io.Discard, memory.ExportOptions{Namespaces: []string{"alice", "nobody"}}); !errors.As(err, &nf) || nf.Name != "nobody" {
		t.Errorf("export of a namespace that does not exist: %v, want a NotFoundError naming it", err)
	}
	var buf bytes.Buffer
	res, err := svc.Export(bg, &buf, memory.ExportOptions{Namespaces: []string{"bob"}, Version: "v9"})
	if err != nil || res.Memories != 1 || res.Namespaces != 1 {
		t.Fatalf("export of bob = %+v, %v", res, err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"format":"agentmem-export","version":2,"agentmem":"v9","embedder":"","dims":0,"vectors":false,"namespaces":["bob"]`) || lines[2] != `{"end":"agentmem-export","memories":1,"sessions":1}` {
		t.Errorf("export = %q", buf.String())
	}
	if want := `{"namespace":"bob","session_id":"b1","session_date":"2023-01-15T00:00:00Z","turn":0,"id":"b1:0","role":"user","text":"I adopted a cat named Pixel.","created":"2023-06-01T12:00:00Z"}`; lines[1] != want {
		t.Errorf("memory line =\n%s\nwant\n%s", lines[1], want)
	}
}

// Bad input names the line and the field, and stores nothing.
func TestImportRefusesBadInput(t *testing.T) {
	src := open(t, nil)
	fill(t, src)
	var buf bytes.Buffer
	if _, err := src.Export(bg, &buf, memory.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	lines := strings.SplitAfter(good, "\n")
	lines = lines[:len(lines)-1] // the empty string after the last newline
	head, body, end := lines[0], lines[1:len(lines)-1], lines[len(lines)-1]
	if len(body) != 7 || end != `{"end":"agentmem-export","memories":7,"sessions":3}`+"\n" {
		t.Fatalf("export has %d memory lines, want 7, and ends with %q", len(body), end)
	}
	replace := func(i int, old, new string) string {
		ls := append([]string(nil), lines...)
		if !strings.Contains(ls[i], old) {
			t.Fatalf("line %d %q lacks %q", i+1, ls[i], old)
		}
		ls[i] = strings.Replace(ls[i], old, new, 1)
		return strings.Join(ls, "")
	}
	cases := []refusal{
		{"truncated last line", head + strings.Join(body, "")[:len(strings.Join(body, ""))-20], 8, "", "not a whole JSON object"},
		// cut between two lines: every line whole, only the end says so
		{"cut at a line's end", head + strings.Join(body[:4], ""), 5, "", "without the export's end line"},
		{"lines missing before the end", head + strings.Join(body[:4], "") + end, 6, "memories", "counts 7 memories, the file holds 4"},
		{"a line after the end", good + body[0], 10, "", "follows the export's end line"},
		{"an end line spaced otherwise", head + strings.Join(body, "") + `{ "end" : "agentmem-export", "memories": 6, "sessions": 3 }` + "\n", 9, "memories", "counts 6 memories, the file holds 7"},
		{"foreign JSON", head + `{"title":"a note","body":"hello"}` + "\n", 2, "title", "not a field of the agentmem export format"},
		{"not JSON", head + "namespace,session,text\n", 2, "", "not a whole JSON object"},
		{"foreign header", `{"type":"conversation","messages":[]}` + "\n" + strings.Join(body, ""), 1, "format", "not an agentmem export"},
		{"no header", strings.Join(body, ""), 1, "", "is a memory: the export's header line"},
		{"no header, a mark first", `{"forgotten":{"namespace":"a","session_id":"s","turn":0,"id":"s:0","hash":"00"}}` + "\n" + strings.Join(body, ""), 1, "", "is a mark of a forgotten turn: the export's header line"},
		{"unknown version", replace(0, `"version":2`, `"version":4`), 1, "version", "version 4 is not supported"},
		{"turn of the wrong type", replace(3, `"turn":2`, `"turn":"two"`), 4, "turn", "must be a JSON number"},
		{"missing session date", replace(2, `"session_date":"2023-06-02T00:00:00Z",`, ""), 3, "session_date", "is missing"},
		{"bad date", replace(2, `"session_date":"2023-06-02T00:00:00Z"`, `"session_date":"2 June"`), 3, "session_date", "RFC 3339"},
		{"bad namespace", replace(7, `"namespace":"bob"`, `"namespace":"b o b"`), 8, "namespace", "has the character"},
		{"namespace of a path step", replace(7, `"namespace":"bob"`, `"namespace":".."`), 8, "namespace", "step of its path"},
		{"id that is not session:turn", replace(2, `"id":"s-june:1"`, `"id":"x"`), 3, "id", "must be session_id:turn"},
		{"unknown role", replace(1, `"role":"user"`, `"role":"narrator"`), 2, "role", "must be one of"},
		{"session not together", head + body[0] + body[3] + body[1] + strings.Join(body[2:3], "") + strings.Join(body[4:], "") + end, 4, "session_id", "appears again"},
		{"empty file", "", 1, "", "the file is empty"},
	}
	refused(t, nil, cases)

	// a version 1 file has no end line, and is read without it
	t.Run("version 1", func(t *testing.T) {
		dst := open(t, nil)
		v1 := strings.Replace(head, `"version":2`, `"version":1`, 1) + strings.Join(body, "")
		if res, err := dst.Import(bg, textOpener(v1), memory.ImportOptions{}); err != nil || res.Imported != 7 {
			t.Fatalf("import of a version 1 export: %+v, %v", res, err)
		}
	})

	t.Run("conflicting content", func(t *testing.T) {
		dst := open(t, nil)
		if _, err := dst.Remember(bg, memory.RememberRequest{Namespace: "bob", SessionID: "b1", SessionDate: "2023-01-15", Messages: []memory.Message{{Role: "user", Content: "something else"}}}); err != nil {
			t.Fatal(err)
		}
		_, err := dst.Import(bg, textOpener(good), memory.ImportOptions{})
		var le *memory.LineError
		if !errors.As(err, &le) || le.Line != 8 || le.Field != "id" || !strings.Contains(err.Error(), "already stored with other content") {
			t.Fatalf("error = %v, want line 8 naming id", err)
		}
		ns, _ := dst.Namespaces(bg)
		if len(ns) != 1 || ns[0].Name != "bob" || ns[0].Memories != 1 {
			t.Errorf("a refused import stored something: %+v", ns)
		}
	})
}

// A store with a history (turns appended one call at a time, each made
// searchable before the next, and a namespace written and forgotten)
// exported and imported into a new data dir recalls exactly the same
// memories with exactly the same scores: ranking depends on what is
// stored, not on how the index got there.
func TestRoundTripAfterHistory(t *testing.T) {
	emb := &fake.Embedder{Name: "rt", Synonyms: map[string]string{"instrument": "violin", "kid": "daughter"}}
	src := open(t, emb)
	scratch := memory.RememberRequest{Namespace: "scratch", SessionID: "x", SessionDate: "2023-04-01"}
	for i := 0; i < 40; i++ {
		scratch.Messages = append(scratch.Messages, memory.Message{Role: "user",
			Content: fmt.Sprintf("Scratch note %d about the sale, the raincoat, a violin and the cat, with padding words %d.", i, i*7)})
	}
	if _, err := src.Remember(bg, scratch); err != nil {
		t.Fatal(err)
	}
	probe := memory.RecallRequest{Query: "sale", Namespace: "alice", K: 1}
	sessions := []memory.RememberRequest{
		{Namespace: "alice", SessionID: "s-may", SessionDate: "1:56 pm on 8 May, 2023", Messages: []memory.Message{
			{Role: "user", Speaker: "Alice", Content: "Yesterday I went to the Nordstrom friends and family sale."},
			{Role: "assistant", Content: "Did you find anything nice at the sale?"},
			{Role: "user", Speaker: "Alice", Content: "A blue raincoat for the trip to Portland, and a raincoat for my daughter."},
			{Role: "assistant", Content: "Portland in May is rainy, a raincoat is a good choice for the trip."},
		}},
		{Namespace: "alice", SessionID: "s-june", SessionDate: "2023-06-02", Messages: []memory.Message{
			{Role: "user", Content: "My daughter started violin lessons on Tuesday."},
			{Role: "assistant", Content: "How exciting, which teacher teaches the violin lessons?"},
			{Role: "user", Content: "Mrs Lindqvist from the music school, the violin teacher everyone likes."},
		}},
		{Namespace: "bob", SessionID: "b1", SessionDate: "2023-01-15", Messages: []memory.Message{
			{Role: "user", Content: "I adopted a cat named Pixel."},
			{Role: "assistant", Content: "A cat! Pixel is a great name for a cat."},
		}},
	}
	for _, s := range sessions {
		for i := range s.Messages {
			one := s
			one.Messages = s.Messages[:i+1]
			if _, err := src.Remember(bg, one); err != nil {
				t.Fatal(err)
			}
			if _, err := src.Recall(bg, probe); err != nil { // makes the turn searchable: one more segment
				t.Fatal(err)
			}
		}
	}
	if _, err := src.Forget(bg, memory.ForgetRequest{Namespace: "scratch", All: true, Confirm: true}); err != nil {
		t.Fatal(err)
	}
	qs := []memory.RecallRequest{
		{Query: "sale raincoat Portland trip", Namespace: "alice", Fusion: memory.TextOnly},
		{Query: "violin teacher lessons daughter", Namespace: "alice", Fusion: memory.TextOnly},
		{Query: "cat Pixel", Namespace: "bob", Fusion: memory.TextOnly},
		{Query: "When did Alice go to the Nordstrom sale?", Namespace: "alice"},
		{Query: "what instrument does the kid learn", Namespace: "alice"},
		{Query: "a raincoat", Namespace: "alice", Fusion: memory.RSF},
	}
	run := func(svc *memory.Service) []memory.RecallResult {
		var out []memory.RecallResult
		for _, q := range qs {
			q.K = 10
			res, err := svc.Recall(bg, q)
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.Hits {
				res.Hits[i].Memory.Vectors = nil
			}
			out = append(out, res)
		}
		return out
	}
	want := run(src)
	path := export(t, src, memory.ExportOptions{Vectors: true, Version: "test"})
	dst := open(t, emb)
	if _, err := dst.Import(bg, fileOpener(path), memory.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	got := run(dst)
	for i := range qs {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("query %q: recall after the round trip differs:\n got %s\nwant %s", qs[i].Query, hitsString(got[i]), hitsString(want[i]))
		}
	}
}

func hitsString(r memory.RecallResult) string {
	var b strings.Builder
	for _, h := range r.Hits {
		fmt.Fprintf(&b, "%s=%.6g ", h.Memory.ID, h.Score)
	}
	return b.String()
}

// An export with vectors names their recipe; an import keeps a file's
// vectors only when they were made by the recipe it makes, and embeds the
// memories of another (an earlier agentmem's export: one vector a short
// turn) again, so that the store's recorded recipe stays true.
func TestImportReembedsAnotherRecipe(t *testing.T) {
	emb := memory.Contextual(&fake.Embedder{Name: "recipe"})
	src := open(t, emb)
	if _, err := src.Remember(bg, memory.RememberRequest{SessionID: "s", SessionDate: "2023-05-07", Messages: []memory.Message{
		{Role: "user", Speaker: "Sam", Content: "I went kayaking. The lake was calm. We had fun."}}}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(export(t, src, memory.ExportOptions{Vectors: true}))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(strings.TrimSpace(string(raw)), "\n", 3)
	if !strings.Contains(lines[0], `"recipe":"`+memory.Recipe+`"`) {
		t.Fatalf("an export with vectors names no recipe: %s", lines[0])
	}
	var line map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &line); err != nil {
		t.Fatal(err)
	}
	windows := len(line["vectors"].([]any))
	if windows != 4 {
		t.Fatalf("the exported turn holds %d windows, want 4", windows)
	}
	// the same memory as an earlier agentmem exported it
	line["vectors"] = line["vectors"].([]any)[:1]
	old, _ := json.Marshal(line)
	oldFile := strings.Replace(lines[0], `"recipe":"`+memory.Recipe+`",`, "", 1) + "\n" + string(old) + "\n" + lines[2] + "\n"

	for _, c := range []struct {
		name, file string
		reembedded int
	}{{"this recipe's", string(raw), 0}, {"an earlier recipe's", oldFile, 1}} {
		t.Run(c.name, func(t *testing.T) {
			dst := open(t, emb)
			res, err := dst.Import(bg, textOpener(c.file), memory.ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reembedded != c.reembedded {
				t.Errorf("re-embedded %d memories, want %d", res.Reembedded, c.reembedded)
			}
			again, err := os.ReadFile(export(t, dst, memory.ExportOptions{Vectors: true}))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.SplitN(strings.TrimSpace(string(again)), "\n", 3)[1]; got != lines[1] {
				t.Errorf("the imported memory exports as\n%s\nwant\n%s", got, lines[1])
			}
		})
	}
}

// refusal is a file an import must refuse, at line and field, saying
// says.
type refusal struct {
	name, file string
	line       int
	field      string
	says       string
}

// refused imports each case's file into a new store with embedder emb
// (nil for none): the import must fail with a LineError naming the line
// and the field, and store nothing.
func refused(t *testing.T, emb memory.Embedder, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dst := open(t, emb)
			_, err := dst.Import(bg, textOpener(c.file), memory.ImportOptions{})
			var le *memory.LineError
			if !errors.As(err, &le) || le.Line != c.line || le.Field != c.field || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("error = %v, want line %d, field %q, saying %q", err, c.line, c.field, c.says)
			}
			if n := strings.Count(err.Error(), "nothing was imported"); n != 1 {
				t.Errorf("error = %v: says %d times that nothing was imported, want once", err, n)
			}
			if ns, err := dst.Namespaces(bg); err != nil || len(ns) != 0 {
				t.Errorf("bad input stored something: %+v, %v", ns, err)
			}
		})
	}
}

package memory_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
)

// recorder remembers the document texts it was asked to embed; with a
// gate, it embeds documents only once the gate opens.
type recorder struct {
	*fake.Embedder
	gate  chan struct{}
	waits atomic.Int32 // calls waiting at the gate
	mu    sync.Mutex
	texts []string
}

func (r *recorder) EmbedDocuments(ctx context.Context, texts []string) ([][][]float32, error) {
	r.mu.Lock()
	gate := r.gate
	r.mu.Unlock()
	if gate != nil {
		r.waits.Add(1)
		defer r.waits.Add(-1)
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	vs, err := r.Embed(ctx, texts)
	out := make([][][]float32, len(vs))
	for i, v := range vs {
		out[i] = [][]float32{v}
	}
	return out, err
}

func (r *recorder) waiting() int32 { return r.waits.Load() }

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.texts)
	slices.Sort(out)
	return out
}

var contextualSession = memory.RememberRequest{Namespace: "n", SessionID: "s", SessionDate: "2023-05-07", Messages: []memory.Message{
	{Role: "user", Speaker: "Mel", Content: "We finally took the kids camping at the lake last weekend, the one near the old mill."},
	{Role: "assistant", Content: "How did it go?"},
	{Role: "user", Speaker: "Mel", Content: "Amazing, the kids loved it!"},
}}

// The turns as a contextual embedder must see them: each led by the last
// PrevWords words of the turn before it.
func wantContextual() []string {
	ms := contextualSession.Messages
	embedText := func(m memory.Message) string {
		if m.Speaker != "" {
			return m.Speaker + ": " + m.Content
		}
		return m.Content
	}
	lead := func(m memory.Message) string {
		f := strings.Fields(embedText(m))
		return strings.Join(f[max(0, len(f)-memory.PrevWords):], " ") + "\n"
	}
	out := []string{embedText(ms[0]), lead(ms[0]) + embedText(ms[1]), lead(ms[1]) + embedText(ms[2])}
	slices.Sort(out)
	return out
}

// A contextual embedder embeds a turn with the end of the turn before it,
// and every path that makes vectors does the same: remember, the
// background vectors of a long remember, and reindex. A store made with
// the plain recipe asks for a reindex, which moves it to this one.
func TestContextualVectorsOnEveryPath(t *testing.T) {
	if id := memory.Contextual(&fake.Embedder{Name: "x"}).ID(); !strings.HasSuffix(id, "+prev10") || !strings.HasPrefix(id, "fake:x") {
		t.Fatalf("contextual id %q", id)
	}
	open := func(t *testing.T, dir string, e memory.Embedder, wait time.Duration) (*memory.Service, *embedded.Store) {
		st, err := embedded.Open(bg, dir, embedded.Options{EmbedderID: e.ID(), Dims: e.Dims(), NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		svc, err := memory.New(memory.Options{Store: st, Embedder: e, EmbedWait: wait})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close(); st.Close() })
		return svc, st
	}
	want := wantContextual()

	t.Run("remember", func(t *testing.T) {
		rec := &recorder{Embedder: &fake.Embedder{Name: "r"}}
		svc, _ := open(t, t.TempDir(), memory.Contextual(rec), -1)
		// the turns one call at a time: the turn before comes from the store
		for i := range contextualSession.Messages {
			one := contextualSession
			one.Messages = contextualSession.Messages[i : i+1]
			if _, err := svc.Remember(bg, one); err != nil {
				t.Fatal(err)
			}
		}
		if got := rec.seen(); !slices.Equal(got, want) {
			t.Errorf("remember embedded\n%q\nwant\n%q", got, want)
		}
	})

	t.Run("background", func(t *testing.T) {
		rec := &recorder{Embedder: &fake.Embedder{Name: "r"}, gate: make(chan struct{})}
		svc, _ := open(t, t.TempDir(), memory.Contextual(rec), time.Millisecond)
		if _, err := svc.Remember(bg, contextualSession); err != nil {
			t.Fatal(err)
		}
		close(rec.gate)
		waitPending(t, svc, contextualSession.Namespace, "camping")
		if got := rec.seen(); !slices.Equal(got, want) {
			t.Errorf("background vectors embedded\n%q\nwant\n%q", got, want)
		}
	})

	t.Run("reindex", func(t *testing.T) {
		dir := t.TempDir()
		plain := &recorder{Embedder: &fake.Embedder{Name: "r"}}
		svc, st := open(t, dir, plain, -1)
		if _, err := svc.Remember(bg, contextualSession); err != nil {
			t.Fatal(err)
		}
		svc.Close()
		st.Close()
		rec := &recorder{Embedder: &fake.Embedder{Name: "r"}}
		ctxl := memory.Contextual(rec)
		if _, err := embedded.Open(bg, dir, embedded.Options{EmbedderID: ctxl.ID(), Dims: ctxl.Dims(), NoSync: true}); !errors.Is(err, memory.ErrEmbedderMismatch) || !strings.Contains(err.Error(), "agentmem reindex") {
			t.Fatalf("a store of plain vectors opened with the contextual recipe: %v", err)
		}
		st2, err := embedded.Open(bg, dir, embedded.Options{NoSync: true, SkipEmbedderCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := memory.Reindex(bg, st2, ctxl, nil); err != nil {
			t.Fatal(err)
		}
		if id, _ := st2.Embedder(); id != ctxl.ID() {
			t.Errorf("store embedder after reindex = %q, want %q", id, ctxl.ID())
		}
		st2.Close()
		if got := rec.seen(); !slices.Equal(got, want) {
			t.Errorf("reindex embedded\n%q\nwant\n%q", got, want)
		}
	})
}

// An import that embeds a session stored in two parts embeds each turn
// with the end of the turn before it, read from the store for the first
// turn of the second part, as remember does.
func TestContextualImportInParts(t *testing.T) {
	src := open(t, nil)
	if _, err := src.Remember(bg, contextualSession); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(export(t, src, memory.ExportOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 5 { // the header, 3 turns, the end
		t.Fatalf("export of 3 turns has %d lines", len(lines))
	}
	rec := &recorder{Embedder: &fake.Embedder{Name: "r"}}
	ctxl := memory.Contextual(rec)
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{EmbedderID: ctxl.ID(), Dims: ctxl.Dims(), Recipe: memory.Recipe, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dst, err := memory.New(memory.Options{Store: st, Embedder: ctxl})
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	// the file in two parts, each a version 1 file (no end line to count)
	v1 := strings.Replace(lines[0], `"version":2`, `"version":1`, 1)
	for _, part := range [][]string{lines[1:2], lines[2:4]} {
		file := v1 + "\n" + strings.Join(part, "\n") + "\n"
		if _, err := dst.Import(bg, textOpener(file), memory.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := rec.seen(), wantContextual(); !slices.Equal(got, want) {
		t.Errorf("an import in two parts embedded\n%q\nwant\n%q", got, want)
	}
}

// contextualService is a service over a fresh embedded store, embedding
// with e under the contextual recipe.
func contextualService(t *testing.T, e memory.Embedder) *memory.Service {
	t.Helper()
	ctxl := memory.Contextual(e)
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{EmbedderID: ctxl.ID(), Dims: ctxl.Dims(), Recipe: memory.Recipe, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Embedder: ctxl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// A turn forgotten by its id leaves no words in the vectors of the turn
// after it, which a contextual embedder led with them: that turn's vectors
// are made again from the turn before the forgotten one, and a search by
// the forgotten words scores it as a session that never held them does.
func TestForgetMakesTheNextTurnsVectorsAgain(t *testing.T) {
	rec := &recorder{Embedder: &fake.Embedder{Name: "r"}}
	svc := contextualService(t, rec)
	said := []memory.Message{{Role: "user", Content: "Remember this for me"}, {Role: "user", Content: "my bank PIN is 4512"}, {Role: "assistant", Content: "Noted, kept safe"}}
	for _, c := range []struct {
		ns   string
		msgs []memory.Message
	}{{"forgot", said}, {"never", []memory.Message{said[0], said[2]}}} {
		if _, err := svc.Remember(bg, memory.RememberRequest{Namespace: c.ns, SessionID: "s", SessionDate: "2023-05-07", Messages: c.msgs}); err != nil {
			t.Fatal(err)
		}
	}
	rec.mu.Lock()
	rec.texts = nil
	rec.mu.Unlock()
	res, err := svc.Forget(bg, memory.ForgetRequest{Namespace: "forgot", IDs: []string{"s:1"}})
	if err != nil || res.Deleted != 1 || res.Note != "" {
		t.Fatalf("forget = %+v, %v", res, err)
	}
	if got, want := rec.seen(), []string{"Remember this for me\nNoted, kept safe"}; !slices.Equal(got, want) {
		t.Errorf("the forget embedded %q, want %q: the next turn led by the turn before the forgotten one", got, want)
	}
	score := func(ns string) float64 {
		t.Helper()
		r, err := svc.Recall(bg, memory.RecallRequest{Namespace: ns, Query: "bank PIN 4512", Fusion: memory.VectorOnly, K: 5})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range r.Hits {
			if h.Memory.Text == "Noted, kept safe" {
				return h.Score
			}
		}
		t.Fatalf("vector recall in %s lacks the turn after: %+v", ns, r.Hits)
		return 0
	}
	if a, b := score("forgot"), score("never"); a != b {
		t.Errorf("a search by the forgotten words scores the turn after it %v, against %v where they were never said", a, b)
	}
}

// When the turn after a forgotten one cannot be embedded again, the
// forget still deletes, and says what it left.
func TestForgetSaysWhatItCouldNotEmbed(t *testing.T) {
	f := &failing{Embedder: &fake.Embedder{Name: "f"}}
	svc := contextualService(t, f)
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", SessionDate: "2023-05-07", Messages: []memory.Message{{Role: "user", Content: "my PIN is 4512"}, {Role: "assistant", Content: "Noted"}}}); err != nil {
		t.Fatal(err)
	}
	f.fail.Store(true)
	res, err := svc.Forget(bg, memory.ForgetRequest{IDs: []string{"s:0"}})
	if err != nil || res.Deleted != 1 || !strings.Contains(res.Note, "until agentmem reindex") || !strings.Contains(res.Note, "the embedder is down") {
		t.Fatalf("forget with the embedder down = %+v, %v", res, err)
	}
}

// said is n user turns, each with a word of its own ("secret3").
func said(n int) []memory.Message {
	var out []memory.Message
	for i := range n {
		out = append(out, memory.Message{Role: "user", Content: fmt.Sprintf("turn %d says secret%d", i, i)})
	}
	return out
}

// lastInput is the last text the recorder embedded that ends with suffix.
func (r *recorder) lastInput(suffix string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	last := ""
	for _, s := range r.texts {
		if strings.HasSuffix(s, suffix) {
			last = s
		}
	}
	return last
}

// The turn after a forgotten one is found however far after it: remember
// leads a turn with the last stored one before it, whatever the gap (a
// run of forgotten turns between them).
func TestForgetFindsTheNextTurnPastAGap(t *testing.T) {
	rec := &recorder{Embedder: &fake.Embedder{Name: "r"}}
	svc := contextualService(t, rec)
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", SessionDate: "2023-05-07", Messages: said(11)}); err != nil {
		t.Fatal(err)
	}
	var run []string
	for i := 1; i <= 10; i++ {
		run = append(run, memory.MemoryID("s", i))
	}
	if _, err := svc.Forget(bg, memory.ForgetRequest{IDs: run}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", Messages: []memory.Message{{Role: "assistant", Content: "a new reply"}}}); err != nil {
		t.Fatal(err)
	}
	if got := rec.lastInput("a new reply"); !strings.Contains(got, "secret0") {
		t.Fatalf("the reply was embedded as %q, after turn 0", got)
	}
	if _, err := svc.Forget(bg, memory.ForgetRequest{IDs: []string{"s:0"}}); err != nil {
		t.Fatal(err)
	}
	if got := rec.lastInput("a new reply"); got != "a new reply" {
		t.Errorf("after turn 0 was forgotten, the reply 11 turns after it was last embedded as %q", got)
	}
}

// A forget while a remember of the session embeds its next turn waits for
// it, and then embeds that turn again without the forgotten words.
func TestForgetWhileRememberEmbeds(t *testing.T) {
	rec := &recorder{Embedder: &fake.Embedder{Name: "r"}}
	svc := contextualService(t, rec)
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", SessionDate: "2023-05-07", Messages: said(2)}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	rec.gate = make(chan struct{})
	rec.mu.Unlock()
	remembered, forgot := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", Messages: []memory.Message{{Role: "assistant", Content: "next reply"}}})
		remembered <- err
	}()
	for rec.waiting() == 0 { // the remember is embedding "next reply"
		time.Sleep(time.Millisecond)
	}
	go func() {
		_, err := svc.Forget(bg, memory.ForgetRequest{IDs: []string{"s:1"}})
		forgot <- err
	}()
	time.Sleep(50 * time.Millisecond)
	close(rec.gate)
	if err := <-remembered; err != nil {
		t.Fatal(err)
	}
	if err := <-forgot; err != nil {
		t.Fatal(err)
	}
	if got := rec.lastInput("next reply"); strings.Contains(got, "secret1") {
		t.Errorf("the turn after forgotten s:1 was last embedded as %q", got)
	}
}

// A forget while the background filler embeds the next turn (still
// pending, so the forget has no vectors of it to make again): the filler
// sees its previous turn gone once it has stored, and embeds it again.
func TestForgetWhileTheFillerEmbeds(t *testing.T) {
	rec := &recorder{Embedder: &fake.Embedder{Name: "r"}}
	svc := contextualService(t, rec)
	rec.mu.Lock()
	rec.gate = make(chan struct{})
	rec.mu.Unlock()
	if _, err := svc.Remember(bg, memory.RememberRequest{SessionID: "s", SessionDate: "2023-05-07", VectorsLater: true, Messages: said(3)}); err != nil {
		t.Fatal(err)
	}
	for rec.waiting() == 0 { // the filler is embedding the three turns
		time.Sleep(time.Millisecond)
	}
	if res, err := svc.Forget(bg, memory.ForgetRequest{IDs: []string{"s:1"}}); err != nil || res.Deleted != 1 {
		t.Fatalf("forget = %+v, %v", res, err)
	}
	close(rec.gate)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r, err := svc.Recall(bg, memory.RecallRequest{Query: "turn", K: 5})
		if err != nil {
			t.Fatal(err)
		}
		if r.Pending == 0 && !strings.Contains(rec.lastInput("turn 2 says secret2"), "secret1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turn after forgotten s:1 was last embedded as %q (%d pending)", rec.lastInput("turn 2 says secret2"), r.Pending)
		}
	}
}

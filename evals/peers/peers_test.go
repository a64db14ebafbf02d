package peers

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"agentmem/evals/peers/peertest"
)

func day(s string) time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return d
}

// conversation is a small LoCoMo-like history: two sessions, two speakers,
// and a turn id scheme that must never reach the peer.
func conversation() []Turn {
	s1, s2 := day("2023-05-08"), day("2023-06-09")
	return []Turn{
		{Ref: "D1:1", SessionID: "session_1", Date: s1, Role: "user", Speaker: "Caroline", Text: "I went to a LGBTQ support group yesterday and it was so powerful."},
		{Ref: "D1:2", SessionID: "session_1", Date: s1, Role: "assistant", Speaker: "Melanie", Text: "That's great! I'm painting a sunset with my kids this weekend."},
		{Ref: "D1:3", SessionID: "session_1", Date: s1, Role: "user", Speaker: "Caroline", Text: "Thanks! Painting sounds relaxing."},
		{Ref: "D2:1", SessionID: "session_2", Date: s2, Role: "user", Speaker: "Caroline", Text: "I'm researching adoption agencies for transgender parents."},
		{Ref: "D2:2", SessionID: "session_2", Date: s2, Role: "assistant", Speaker: "Melanie", Text: "We went camping at the beach, the kids loved the sunset."},
	}
}

func refsOf(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, strings.Join(h.Refs, "+"))
	}
	return out
}

// TestServerMemoryAgainstFake drives the server-memory adapter end to end
// against the fake peer: a spawned stdio process, store, search, refs.
func TestServerMemoryAgainstFake(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inst := fakeInstallation(t)
	p := NewServerMemory()
	dir := t.TempDir()
	c, err := Open(ctx, inst, p, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	turns := conversation()
	if err := p.Store(ctx, c, "conv-1", turns); err != nil {
		t.Fatal(err)
	}
	// Storing again stores nothing twice.
	if err := p.Store(ctx, c, "conv-1", turns[:2]); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join(dir, "memory.jsonl"))
	if err != nil {
		t.Fatalf("the server's file is not in its data directory: %v", err)
	}
	if n := strings.Count(string(file), "\n"); n != len(turns) {
		t.Errorf("the server holds %d entities, want %d", n, len(turns))
	}
	if strings.Contains(string(file), "D1:") || strings.Contains(string(file), "session_") {
		t.Errorf("a benchmark id reached the peer:\n%s", file)
	}
	if !strings.Contains(string(file), "[2023-05-08 Mon] Caroline: I went to a LGBTQ support group") {
		t.Errorf("the turn is not stored with its date and speaker:\n%s", file)
	}

	hits, err := p.Search(ctx, c, "conv-1", "When did Caroline go to the LGBTQ support group?", 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := refsOf(hits); len(got) == 0 || got[0] != "D1:1" {
		t.Fatalf("LGBTQ question: got %v, want D1:1 first", got)
	}
	if len(hits) > 3 {
		t.Errorf("k=3 returned %d hits", len(hits))
	}
	if !strings.Contains(hits[0].Text, "support group") {
		t.Errorf("hit text %q is not the stored turn", hits[0].Text)
	}
	// "sunset" is in two turns, "beach" in one: the turn with both ranks first.
	hits, err = p.Search(ctx, c, "conv-1", "Where did Melanie watch the sunset at the beach?", 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := refsOf(hits); len(got) < 2 || got[0] != "D2:2" || !slices.Contains(got, "D1:2") {
		t.Fatalf("beach question: got %v, want D2:2 first and D1:2 among them", got)
	}
	// A question of stopwords only sends no query and finds nothing.
	hits, err = p.Search(ctx, c, "conv-1", "What was it?", 5)
	if err != nil || len(hits) != 0 {
		t.Fatalf("stopword question: %v, %v", hits, err)
	}
	if _, err := p.Search(ctx, c, "conv-1", "sunset", 0); err == nil || !strings.Contains(err.Error(), "k:") {
		t.Errorf("k=0: got %v, want an error naming k", err)
	}
}

func TestStartReportsAFailingServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inst := fakeInstallation(t)
	cmd := inst.Command(NewServerMemory(), t.TempDir())
	// Without MEMORY_FILE_PATH the fake exits at once with a message.
	var env []string
	for _, e := range cmd.Env {
		if !strings.HasPrefix(e, "MEMORY_FILE_PATH=") {
			env = append(env, e)
		}
	}
	cmd.Env = env
	c, err := Start(ctx, cmd)
	if err == nil {
		c.Close()
		t.Fatal("a server that exits at once started")
	}
	if !strings.Contains(err.Error(), "MEMORY_FILE_PATH is not set") {
		t.Errorf("the error does not carry the server's stderr: %v", err)
	}
}

func TestCodes(t *testing.T) {
	seen := map[string]bool{}
	for n := 0; n < 5000; n++ {
		c := encodeIn(codeDigits, n)
		if seen[c] {
			t.Fatalf("code %q repeats", c)
		}
		seen[c] = true
		if strings.IndexFunc(c, func(r rune) bool {
			return r == ':' || r == ' ' || r > 127 ||
				(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		}) >= 0 {
			t.Fatalf("code %q has a letter, digit, colon or space", c)
		}
		if m, ok := decodeIn(codeDigits, c); !ok || m != n {
			t.Fatalf("decodeIn(encodeIn(%d)) = %d, %v", n, m, ok)
		}
	}
	keeperKey := regexp.MustCompile(`^[a-zA-Z0-9_\-./:]+$`) // mcp-memory-keeper's rule
	for n := 0; n < 3000; n++ {
		c := encodeIn(keeperDigits, n)
		if k := c + mkKeyEnd; !keeperKey.MatchString(k) || strings.HasSuffix(k, "--") || strings.ContainsAny(c, ":/abcdefghijklmnopqrstuvwxyz0123456789") {
			t.Fatalf("memory-keeper code %q", c)
		}
		if m, ok := decodeIn(keeperDigits, c); !ok || m != n {
			t.Fatalf("memory-keeper code %q decodes to %d", c, m)
		}
	}
	if _, ok := decodeIn(codeDigits, "D1:3"); ok {
		t.Error("decode accepted a benchmark id")
	}
	var l ledger
	a, _ := l.assign("ns", "r1")
	b, _ := l.assign("ns", "r2")
	if again, fresh := l.assign("ns", "r1"); fresh || again != a {
		t.Errorf("assigning r1 again: %q %v", again, fresh)
	}
	if err := l.merge("ns", a, "r2"); err != nil {
		t.Fatal(err)
	}
	if refs, err := l.refs("ns", a); err != nil || !slices.Equal(refs, []string{"r1", "r2"}) {
		t.Errorf("merged refs: %v %v", refs, err)
	}
	if _, err := l.refs("ns", b); err == nil {
		t.Error("the retired code of a merged turn still resolves")
	}
	if _, err := l.refs("other", a); err == nil {
		t.Error("a code resolves in a namespace that never stored it")
	}
}

func TestKeywords(t *testing.T) {
	got := Keywords("When did Caroline's kids go to the beach, and what paintings did they see?")
	want := []string{"caroline", "kids", "beach", "painting", "see"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := Keywords("What is it?"); len(got) != 0 {
		t.Errorf("stopwords only: %v", got)
	}
	if got := Keywords("Hobbies in 2022: classes"); !slices.Equal(got, []string{"hobb", "2022", "class"}) {
		t.Errorf("got %v", got)
	}
}

func TestAIDevkitParts(t *testing.T) {
	short := Turn{Ref: "x", Date: day("2023-05-08"), Speaker: "Al", Text: "Hi!"}
	parts := adkParts(short)
	if len(parts) != 1 || utf16Len(parts[0]) < adkMinContent || !strings.HasPrefix(parts[0], "[2023-05-08 Mon] Al: Hi! .") {
		t.Errorf("short turn: %q", parts)
	}
	long := Turn{Ref: "y", Date: day("2023-05-08"), Role: "assistant", Text: strings.Repeat("word é ", 2000)}
	parts = adkParts(long)
	if len(parts) < 3 {
		t.Fatalf("a 14000-character turn gave %d parts", len(parts))
	}
	total := 0
	for i, p := range parts {
		if n := utf16Len(p); n > adkMaxContent || n < adkMinContent {
			t.Errorf("part %d has %d UTF-16 units", i, n)
		}
		_, body, _ := strings.Cut(p, "): ")
		total += len([]rune(body))
	}
	if total != len([]rune(long.Text)) {
		t.Errorf("parts hold %d characters of %d", total, len([]rune(long.Text)))
	}
	a := NewAIDevkit()
	if a.scope("conv-26") != "project:conv-26" || a.scope("a_b") == a.scope("a-b") || a.scope("A.b") == a.scope("a.b") {
		t.Errorf("scopes: %q %q %q %q", a.scope("conv-26"), a.scope("a_b"), a.scope("a-b"), a.scope("A.b"))
	}
	valid := regexp.MustCompile(`^project:[a-z0-9_-]+$`)
	for _, ns := range []string{"gpt4_7a0daae1", "Conv 26/x", ""} {
		if !valid.MatchString(a.scope(ns)) {
			t.Errorf("scope(%q) = %q, which the server refuses", ns, a.scope(ns))
		}
	}
}

func TestMemoryKeeperParse(t *testing.T) {
	// The shape context_semantic_search prints (mcp-memory-keeper 0.14.1).
	p := NewMemoryKeeper()
	c1, _ := p.l.assign("u", "D1:1")
	c2, _ := p.l.assign("u", "D1:2")
	text := "Found 3 results for: \"q\"\n\n" +
		"1. [41.2% match]\n   Key: " + c2 + "_\n   Value: [2023-05-08 Mon] Melanie: line one\nline two\n   , Priority: normal\n\n" +
		"2. [30.0% match]\n   Key: " + c1 + "_\n   Value: [2023-05-08 Mon] Caroline: text...\n   , Priority: normal\n\n" +
		"3. [29.0% match]\n   Key: " + c1 + "_\n   Value: [2023-05-08 Mon] Caroline: text...\n   , Priority: normal\n\n"
	hits, err := p.parse("u", text, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := refsOf(hits); !slices.Equal(got, []string{"D1:2", "D1:1"}) {
		t.Errorf("refs %v", got)
	}
	if hits[0].Text != "[2023-05-08 Mon] Melanie: line one\nline two" {
		t.Errorf("text %q", hits[0].Text)
	}
	if _, err := p.parse("u", "Semantic search failed: boom", 5); err == nil {
		t.Error("a failure text was taken for results")
	}
	if hits, err := p.parse("u", "No results found for query: \"q\"", 5); err != nil || len(hits) != 0 {
		t.Errorf("no results: %v %v", hits, err)
	}
}

// TestServerMemoryFaults drives the adapter against the fake peer's three
// faults and checks that each is told apart, and that a hung server costs
// the call's deadline and no more.
func TestServerMemoryFaults(t *testing.T) {
	inst := fakeInstallation(t)
	open := func() (*ServerMemory, *client.Client) {
		p := NewServerMemory()
		c, err := Open(context.Background(), inst, p, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if err := p.Store(context.Background(), c, "u", conversation()); err != nil {
			t.Fatal(err)
		}
		return p, c
	}
	p, c := open()
	_, err := p.Search(context.Background(), c, "u", "Was it "+peertest.MalformedWord+"?", 3)
	if Kind(err) != Malformed {
		t.Errorf("malformed answer: kind %q, error %v", Kind(err), err)
	}
	// The server still answers after a malformed answer.
	if hits, err := p.Search(context.Background(), c, "u", "sunset beach", 3); err != nil || len(hits) == 0 {
		t.Errorf("after a malformed answer: %v, %v", hits, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err = p.Search(ctx, c, "u", "Was it "+peertest.HangWord+"?", 3)
	if Kind(err) != Timeout {
		t.Errorf("hung server: kind %q, error %v", Kind(err), err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("a call with a 1 s deadline to a hung server took %v", took)
	}

	p, c = open()
	_, err = p.Search(context.Background(), c, "u", "Did it go "+peertest.CrashWord+"?", 3)
	if Kind(err) != Crash {
		t.Errorf("crashed server: kind %q, error %v", Kind(err), err)
	}
	if err == nil || !strings.Contains(err.Error(), "crashing on purpose") {
		t.Errorf("the crash's error does not carry the server's stderr: %v", err)
	}
	if _, err := p.Search(context.Background(), c, "u", "sunset", 3); Kind(err) != Crash {
		t.Errorf("a call after the crash: kind %q, error %v", Kind(err), err)
	}
}

package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/tools/client"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/server"
	"agentmem/tools/spec"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.json")

func connect(t testing.TB) *client.Client {
	t.Helper()
	return connectWith(t, embedded.Options{NoSync: true})
}

// connectWith is connect over an embedded store opened with opts.
func connectWith(t testing.TB, opts embedded.Options) *client.Client {
	t.Helper()
	ctx := context.Background()
	st, err := embedded.Open(ctx, t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return time.Date(2023, 5, 7, 14, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return inProcess(t, svc)
}

// inProcess is a typed client of a server over svc.
func inProcess(t testing.TB, svc *memory.Service) *client.Client {
	t.Helper()
	c, err := client.InProcess(context.Background(), server.New(svc, server.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// call calls a tool and returns its text and structured content; isErr
// says whether the tool answered with an error (whose text is then text).
func call(t *testing.T, c *client.Client, tool string, args any) (text string, structured json.RawMessage, isErr bool) {
	t.Helper()
	text, structured, err := c.Call(context.Background(), tool, args)
	var te *client.ToolError
	if errors.As(err, &te) {
		return te.Text, nil, true
	}
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return text, structured, false
}

func TestToolSchemas(t *testing.T) {
	c := connect(t)
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][4]bool{ // readOnly, destructive, idempotent, openWorld
		"remember": {false, false, true, false},
		"recall":   {true, false, true, false},
		"today":    {true, false, true, false},
		"forget":   {false, true, true, false},
	}
	if len(tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(tools), len(want))
	}
	for _, tool := range tools {
		w, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		a := tool.Annotations
		for i, hint := range []*bool{a.ReadOnlyHint, a.DestructiveHint, a.IdempotentHint, a.OpenWorldHint} {
			if hint == nil || *hint != w[i] {
				t.Errorf("%s: hint %d = %v, want %v set explicitly", tool.Name, i, hint, w[i])
			}
		}
		hasOutput := tool.OutputSchema.Type == "object" || strings.Contains(string(tool.RawOutputSchema), `"type":"object"`)
		if want := tool.Name != "recall"; hasOutput != want {
			// recall's structured result is asked for (format json): a
			// host shows its model the structured result when there is one
			t.Errorf("%s: output schema %v, want %v", tool.Name, hasOutput, want)
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	got, err := json.MarshalIndent(tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tools.json", got)
}

// testToday is the first line of every recall's text at the tests' clock.
const testToday = "Today is Sunday, 7 May 2023 (2023-05-07), 14:00 UTC.\n\n"

func TestToolsRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	rem, text, err := c.Remember(ctx, spec.RememberArgs{
		SessionID: "s-may", SessionDate: "2023-05-07",
		Messages: []spec.Message{
			{Role: "user", Content: "Yesterday I ran the Boston marathon!", Speaker: "Caroline"},
			{Role: "assistant", Content: "Congratulations on finishing."},
		},
	})
	if err != nil || !strings.Contains(text, "Stored 2 turns of session s-may (2023-05-07 Sun)") {
		t.Fatalf("remember: %s %v", text, err)
	}
	if !slices.Equal(rem.IDs, []string{"s-may:0", "s-may:1"}) || rem.SessionDate != "2023-05-07T00:00:00Z" {
		t.Errorf("remember result %+v", rem)
	}
	// a resend stores nothing and names the memories that hold each message
	again, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s-may", Messages: []spec.Message{
		{Role: "assistant", Content: "Congratulations on finishing."}, {Role: "user", Content: "Thanks!"},
	}})
	if err != nil || again.Stored != 1 || again.Skipped != 1 || !slices.Equal(again.IDs, []string{"s-may:1", "s-may:2"}) {
		t.Errorf("append after a resend: %+v %v", again, err)
	}
	rec, text, err := c.Recall(ctx, spec.RecallArgs{Query: "What did Caroline run?", K: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, testToday+"[2023-05-07 Sun · session s-may · Caroline (user)]\n  Yesterday [2023-05-06] I ran the Boston marathon!") {
		t.Errorf("recall text = %q", text)
	}
	if len(rec.Memories) != 1 {
		t.Fatalf("recalled %+v", rec)
	}
	m := rec.Memories[0]
	if m.ID != "s-may:0" || m.Role != "user" || m.Speaker != "Caroline" || m.SessionID != "s-may" || m.SessionDate != "2023-05-07T00:00:00Z" || m.Score <= 0 {
		t.Errorf("memory = %+v", m)
	}

	day, text, err := c.Today(ctx)
	if err != nil || text != "Today is Sunday, 7 May 2023 (2023-05-07), 14:00 UTC." {
		t.Errorf("today = %q %v", text, err)
	}
	if day.Datetime != "2023-05-07T14:00:00Z" || day.Weekday != "Sunday" {
		t.Errorf("today structured = %+v", day)
	}

	empty, text, err := c.Recall(ctx, spec.RecallArgs{Query: "marathon", Namespace: "empty"})
	// the namespaces that hold memories are named, for a caller that
	// left its own out, in the text and in the structured result (what
	// Claude Code shows its model)
	note := "Namespace empty holds no memories; these do: default (3 memories). Recall in one of them by naming it as the namespace."
	if err != nil || text != testToday+"No stored memories match.\n"+note || empty.Note != note {
		t.Errorf("recall in an empty namespace = %q, note %q (%v)", text, empty.Note, err)
	}
	// so is where the sessions are, for a session that holds nothing
	empty, text, err = c.Recall(ctx, spec.RecallArgs{Query: "marathon", SessionID: "s-nope"})
	note = "The session_id given names no session of namespace default; the sessions resource (agentmem://default/sessions) lists its sessions."
	if err != nil || text != testToday+"No stored memories match.\n"+note || empty.Note != note {
		t.Errorf("recall in a session that holds nothing = %q, note %q (%v)", text, empty.Note, err)
	}
	if empty, text, err = c.Recall(ctx, spec.RecallArgs{Query: "violin"}); err != nil || text != testToday+"No stored memories match." || empty.Note != "" {
		t.Errorf("recall that finds nothing in a namespace that holds memories = %q, note %q (%v)", text, empty.Note, err)
	}
	if empty, text, err = c.Recall(ctx, spec.RecallArgs{Query: "violin", SessionID: "s-may"}); err != nil || text != testToday+"No stored memories match." || empty.Note != "" {
		t.Errorf("recall that finds nothing in a session that holds memories = %q, note %q (%v)", text, empty.Note, err)
	}
	del, text, err := c.Forget(ctx, spec.ForgetArgs{SessionID: "s-may"})
	if err != nil || del.Deleted != 3 || !strings.Contains(text, "Deleted 3 memories") {
		t.Errorf("forget = %q %+v %v", text, del, err)
	}
}

// forget by a session that holds nothing says so, as forget by ids names
// the ids that named nothing: "Deleted 0 memories" alone left the caller
// guessing (a new-user trial).
func TestForgetUnknownSession(t *testing.T) {
	c := connect(t)
	if text, _, isErr := call(t, c, "remember", map[string]any{"session_id": "real", "messages": []map[string]any{{"role": "user", "content": "kept"}}}); isErr {
		t.Fatal(text)
	}
	text, structured, isErr := call(t, c, "forget", map[string]any{"session_id": "nope"})
	if isErr || text != "Deleted nothing: namespace default has no session of that id." {
		t.Errorf("forget of a session that holds nothing: %q (error %v)", text, isErr)
	}
	var res spec.ForgetResult
	if err := json.Unmarshal(structured, &res); err != nil || res.Deleted != 0 || res.SessionID != "" {
		t.Errorf("structured %s (%v)", structured, err)
	}
	if text, _, _ := call(t, c, "forget", map[string]any{"session_id": "real"}); text != "Deleted 1 memory of session real from namespace default; it stays forgotten when the session is captured again or imported from a history." {
		t.Errorf("forget of a session that holds one: %q", text)
	}
	// the session holds only the mark of its forgotten turn now
	if text, _, _ := call(t, c, "remember", map[string]any{"session_id": "real", "messages": []map[string]any{{"role": "user", "content": "kept"}}}); !strings.Contains(text, "Stored 0 turns") || !strings.Contains(text, "1 turn forgotten before, not stored again") {
		t.Errorf("remember of a forgotten session: %q", text)
	}
	if text, _, _ := call(t, c, "forget", map[string]any{"session_id": "real", "reimport": true}); text != "Deleted nothing: namespace default holds no memory of that session; an import of it, or a client sending it again, may store its turns again." {
		t.Errorf("forget with reimport of a session that holds only marks: %q", text)
	}
	if text, _, _ := call(t, c, "remember", map[string]any{"session_id": "real", "messages": []map[string]any{{"role": "user", "content": "kept"}}}); !strings.Contains(text, "Stored 1 turn ") {
		t.Errorf("remember after forget with reimport: %q", text)
	}
	// a session's id given as a memory id: named, and told apart
	if text, _, _ := call(t, c, "forget", map[string]any{"ids": []string{"real"}}); !strings.Contains(text, "1 of the ids named no memory there: real. A memory id is its session's id, a colon and the turn") {
		t.Errorf("forget of a session id given as an id: %q", text)
	}
	// a memory forgotten before is told from one that never was (a
	// new-user trial read "named no memory" as a failed forget)
	if text, _, _ := call(t, c, "forget", map[string]any{"ids": []string{"real:0"}}); !strings.Contains(text, "Deleted 1 memory") {
		t.Fatalf("forget real:0: %q", text)
	}
	text, structured, _ = call(t, c, "forget", map[string]any{"ids": []string{"real:0"}})
	if text != "Deleted 0 memories from namespace default; real:0 was forgotten before." {
		t.Errorf("forget of a memory forgotten before: %q", text)
	}
	if err := json.Unmarshal(structured, &res); err != nil || !slices.Equal(res.Unknown, []string{"real:0"}) || !slices.Equal(res.Before, []string{"real:0"}) {
		t.Errorf("structured %s (%v)", structured, err)
	}
	if text, _, _ := call(t, c, "forget", map[string]any{"ids": []string{"real:0", "real:7"}}); !strings.Contains(text, "2 of the ids named no memory there: real:0, real:7 (forgotten before: real:0).") {
		t.Errorf("forget of a memory forgotten before and one that never was: %q", text)
	}
}

func TestBadInput(t *testing.T) {
	c := connect(t)
	cases := []struct {
		tool string
		args any
		want string
	}{
		{"remember", map[string]any{}, "messages: is required"},
		{"remember", map[string]any{"messages": "hello"}, "messages: must be an array"},
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": 5}}}, "messages[0].content: must be a string"},
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": strings.Repeat("é", memory.MaxContentChars+1)}}}, "messages[0].content: is 65537 characters; the limit is 65536"},
		{"remember", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "x"}}, "session_date": "the other day-ish"}, "session_date: cannot read"},
		{"recall", map[string]any{"query": "x", "k": 0.5}, "k: must be a whole number"},
		{"recall", map[string]any{"query": "x", "k": 0}, "k: must be at least 1 and at most 100, got 0"},
		{"recall", map[string]any{"query": "x", "k": 101}, "k: must be at most 100, got 101"},
		{"recall", map[string]any{"query": "x", "k": "ten"}, "k: must be a number"},
		{"recall", map[string]any{"query": "x", "pool": 0}, "pool: must be at least 1"},
		{"recall", map[string]any{"query": "x", "weights": map[string]any{"text": 1e308}}, "weights.text: must be at most 100"},
		{"recall", map[string]any{}, "query: is required"},
		{"recall", map[string]any{"query": " "}, "query: must not be empty"},
		{"recall", map[string]any{"query": "x", "before": "someday"}, "before: cannot read"},
		{"recall", map[string]any{"query": "x", "fusion": "vector"}, "needs vectors"},
		{"recall", map[string]any{"query": "x", "limit": 3}, "limit: is not an argument of this tool"},
		{"forget", map[string]any{"all": true}, "confirm: must be true"},
		{"forget", map[string]any{}, "exactly one of ids, session_id or all"},
	}
	for _, tc := range cases {
		text, _, isErr := call(t, c, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error=%v %q, want an error containing %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
	// nothing of the rejected calls was stored
	if text, _, _ := call(t, c, "recall", map[string]any{"query": "x"}); !strings.HasPrefix(text, testToday+"No stored memories match.\nNamespace default holds no memories, and no namespace readable here does.") {
		t.Errorf("rejected calls stored something: %q", text)
	}
}

// The schemas declare the domain's limits: where both check, they agree.
func TestSchemaLimitsMatchDomain(t *testing.T) {
	recall := spec.Schema[spec.RecallArgs]().Properties
	msg := spec.Schema[spec.Message]().Properties
	remember := spec.Schema[spec.RememberArgs]().Properties
	forget := spec.Schema[spec.ForgetArgs]().Properties
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"recall.k maximum", int(*recall["k"].Maximum), memory.MaxK},
		{"recall.pool maximum", int(*recall["pool"].Maximum), memory.MaxPool},
		{"recall.query maxLength", *recall["query"].MaxLength, memory.MaxQueryChars},
		{"recall.weights.text maximum", int(*recall["weights"].Properties["text"].Maximum), memory.MaxWeight},
		{"recall.weights.rank_constant maximum", int(*recall["weights"].Properties["rank_constant"].Maximum), memory.MaxRankConstant},
		{"remember.messages maxItems", *remember["messages"].MaxItems, memory.MaxMessages},
		{"remember.turn maximum", int(*remember["turn"].Maximum), memory.MaxTurn},
		{"message.content maxLength", *msg["content"].MaxLength, memory.MaxContentChars},
		{"forget.ids maxItems", *forget["ids"].MaxItems, memory.MaxIDs},
	} {
		if c.got != c.want {
			t.Errorf("%s: schema %d, domain %d", c.name, c.got, c.want)
		}
	}
	// k has no default in the schema: a call that names none takes one from
	// the size of its history (memory.AutoK), which the description gives
	if d := recall["k"].Description; recall["k"].Default != nil || !strings.Contains(d, fmt.Sprintf("%d up to %s memories", memory.DefaultK, "1,000")) ||
		memory.AutoKFrom != 1000 || !strings.Contains(d, fmt.Sprintf("at most %d", memory.AutoKMost)) {
		t.Errorf("recall.k: default %s, description %q; want none, and AutoK's numbers", recall["k"].Default, d)
	}
	for i, r := range memory.Roles {
		if msg["role"].Enum[i] != r {
			t.Errorf("roles: schema %v, domain %v", msg["role"].Enum, memory.Roles)
		}
	}
}

// A recall as a model makes it returns text alone, so that a host which
// shows its model the structured result when there is one (Claude Code)
// shows the dated passages; format json adds the structured result, with
// the same text beside it.
func TestRecallFormat(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s1", SessionDate: "2023-05-01",
		Messages: []spec.Message{{Role: "user", Content: "My sister Ana moved to Lisbon in March."}}}); err != nil {
		t.Fatal(err)
	}
	text, structured, isErr := call(t, c, "recall", map[string]any{"query": "Where does my sister live?"})
	if isErr || structured != nil {
		t.Errorf("recall as a model calls it: error=%v, structured %s; want text alone", isErr, structured)
	}
	want := testToday + "[2023-05-01 Mon · session s1 · user]\n  My sister Ana moved to Lisbon in March [2023-03]."
	if text != want {
		t.Errorf("recall text = %q, want %q", text, want)
	}
	jtext, structured, isErr := call(t, c, "recall", map[string]any{"query": "Where does my sister live?", "format": "json"})
	var res spec.RecallResult
	if isErr || json.Unmarshal(structured, &res) != nil || len(res.Memories) != 1 || res.Memories[0].ID != "s1:0" || jtext != text || res.Today+".\n\n" != testToday {
		t.Errorf("format json: error=%v structured=%s text=%q", isErr, structured, jtext)
	}
	if text, _, isErr := call(t, c, "recall", map[string]any{"query": "x", "format": "xml"}); !isErr || !strings.Contains(text, "format") {
		t.Errorf("format xml: error=%v %q, want an error naming format", isErr, text)
	}
}

// The structured result shows each memory as the text result does: a
// long one as its excerpt (excerpt true), which the text holds, a short
// one whole; with excerpt 0 every memory is whole. A host that shows its
// model the structured result (Claude Code) so shows it what the budget
// allows, not every long memory whole.
func TestRecallStructuredShowsTheExcerpt(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	long := strings.Repeat("We talked about the weather and the traffic on the way in. ", 12) +
		"My sister Ana moved to Lisbon in March, into a flat near the river. " +
		strings.Repeat("Then the meeting ran long and nobody had lunch before three. ", 12)
	if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s1", SessionDate: "2023-05-01", Messages: []spec.Message{
		{Role: "user", Content: long}, {Role: "assistant", Content: "I hope the move went well for Ana."}}}); err != nil {
		t.Fatal(err)
	}
	rec, text, err := c.Recall(ctx, spec.RecallArgs{Query: "Where did my sister Ana move?"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Namespace != "default" {
		t.Errorf("namespace %q, want the one searched (default), which names the memories' sessions", rec.Namespace)
	}
	byID := map[string]spec.Recalled{}
	for _, m := range rec.Memories {
		byID[m.ID] = m
	}
	got, short := byID["s1:0"], byID["s1:1"]
	if !got.Excerpt || len(got.Text) >= len(long) || !strings.Contains(got.Text, "Lisbon") || !strings.HasPrefix(got.Text, "… ") {
		t.Errorf("the long memory: excerpt %v, text %q; want its excerpt around Lisbon", got.Excerpt, got.Text)
	}
	// the text's line of the memory, without the dates it annotates
	line := ""
	for l := range strings.Lines(text) {
		if after, ok := strings.CutPrefix(l, "user: "); ok {
			line = regexp.MustCompile(` \[\d{4}-[^\]]*\]`).ReplaceAllString(strings.TrimSuffix(after, "\n"), "")
		}
	}
	if !strings.Contains(got.Text, "My sister Ana moved to Lisbon") || line != got.Text {
		t.Errorf("the structured excerpt %q is not what the text shows:\n%s", got.Text, text)
	}
	if short.Excerpt || short.Text != "I hope the move went well for Ana." {
		t.Errorf("the short memory: excerpt %v, text %q; want it whole", short.Excerpt, short.Text)
	}
	rec, _, err = c.Recall(ctx, spec.RecallArgs{Query: "Where did my sister Ana move?", Excerpt: new(0)})
	if err != nil || len(rec.Memories) == 0 || rec.Memories[0].Text != long || rec.Memories[0].Excerpt {
		t.Errorf("excerpt 0: err %v, %+v; want the long memory whole", err, rec.Memories)
	}
}

// The structured result gives each memory the dates the text result
// writes after its relative expressions, resolved against its session's
// date: a host that shows its model only the structured result (Claude
// Code) shows it the dates too.
func TestRecallStructuredGivesTheDates(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s1", SessionDate: "2023-01-24", Messages: []spec.Message{
		{Role: "user", Content: "My laptop backpack arrived on 1/20, I bought it from Amazon last week."},
		{Role: "user", Content: "The laptop backpack cost 80 dollars."}}}); err != nil {
		t.Fatal(err)
	}
	rec, text, err := c.Recall(ctx, spec.RecallArgs{Query: "When did my laptop backpack arrive?", Excerpt: new(0)})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]spec.Recalled{}
	for _, m := range rec.Memories {
		byID[m.ID] = m
	}
	want := []spec.Period{
		{Expression: "1/20", From: "2023-01-20T00:00:00Z", To: "2023-01-21T00:00:00Z"},
		{Expression: "last week", From: "2023-01-16T00:00:00Z", To: "2023-01-23T00:00:00Z"},
	}
	if got := byID["s1:0"].Dates; !slices.Equal(got, want) {
		t.Errorf("dates %+v, want %+v", got, want)
	}
	if !strings.Contains(text, "on 1/20 [2023-01-20]") || !strings.Contains(text, "last week [2023-01-16..2023-01-22]") {
		t.Errorf("the text result does not write the same dates:\n%s", text)
	}
	if d := byID["s1:1"].Dates; d != nil {
		t.Errorf("a memory without dates: %+v, want none", d)
	}
}

// A search whose query names a period that none of the memories it shows
// is dated in, or names a day in, says so first: they are the best
// matches of other days. One that shows such a memory says nothing.
func TestRecallSaysThePeriodHoldsNothing(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s1", SessionDate: "2023-03-01", Messages: []spec.Message{
		{Role: "user", Content: "We decided to put a Redis cache in front of the billing API."}}}); err != nil {
		t.Fatal(err)
	}
	note := `No memory found is dated in "last week" (2023-04-24 to 2023-04-30) or names a day in it: these are the best matches of other days.`
	rec, text, err := c.Recall(ctx, spec.RecallArgs{Query: "What did we decide about the cache last week?"})
	if err != nil || rec.Note != note || !strings.HasPrefix(text, testToday+note+"\n\n") || len(rec.Memories) != 1 {
		t.Errorf("err %v, note %q, text %q; want the note first, then the memory", err, rec.Note, text)
	}
	if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s2", SessionDate: "2023-04-26", Messages: []spec.Message{
		{Role: "user", Content: "We decided to drop the cache for now."}}}); err != nil {
		t.Fatal(err)
	}
	if rec, _, err := c.Recall(ctx, spec.RecallArgs{Query: "What did we decide about the cache last week?"}); err != nil || rec.Note != "" {
		t.Errorf("err %v, note %q; want none once a memory of last week is shown", err, rec.Note)
	}
}

// A question that names only a period is answered by a digest of its
// sessions, which the text and the structured result both say, first.
func TestRecallDigest(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	for _, s := range []struct{ id, date, text string }{
		{"s1", "2023-04-25", "We picked Postgres for the billing service."},
		{"s2", "2023-04-27", "The websocket test flakes on CI."},
		{"s3", "2023-05-02", "Release notes for 2.4 are drafted."},
	} {
		if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: s.id, SessionDate: s.date,
			Messages: []spec.Message{{Role: "user", Content: s.text}}}); err != nil {
			t.Fatal(err)
		}
	}
	note := `A digest of the sessions of "last week" (2023-04-24 to 2023-04-30): both, each by its turns of most content.`
	text, structured, isErr := call(t, c, "recall", map[string]any{"query": "What did we talk about last week?", "format": "json"})
	var res spec.RecallResult
	if isErr || json.Unmarshal(structured, &res) != nil {
		t.Fatalf("error=%v structured=%s", isErr, structured)
	}
	if !strings.HasPrefix(text, testToday+note+"\n\n[2023-04-25 Tue · session s1 · user]") || strings.Contains(text, "Release") {
		t.Errorf("text = %q, want the note, then last week's two sessions, oldest first", text)
	}
	if !res.Digest || res.Note != note || len(res.Memories) != 2 || res.Memories[0].ID != "s1:0" || res.Memories[1].ID != "s2:0" {
		t.Errorf("structured = %s, want digest, the note and s1:0, s2:0", structured)
	}
}

// A memory forgotten by its session's start, as a recall shows a UUID
// session, and forgotten again so, is told as forgotten before.
func TestForgetTwiceByShortID(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	const session = "01a234f8-ca52-7abc-8def-0123456789ab"
	if _, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: session, SessionDate: "2023-05-01",
		Messages: []spec.Message{{Role: "user", Content: "My PIN is 4321."}, {Role: "user", Content: "My dog is Rex."}}}); err != nil {
		t.Fatal(err)
	}
	if text, _, isErr := call(t, c, "forget", map[string]any{"ids": []string{"01a234f8:0"}}); isErr || !strings.HasPrefix(text, "Deleted 1 memory") {
		t.Fatalf("first forget: %q", text)
	}
	text, structured, isErr := call(t, c, "forget", map[string]any{"ids": []string{"01a234f8:0"}})
	var res spec.ForgetResult
	if isErr || json.Unmarshal(structured, &res) != nil || !strings.Contains(text, "01a234f8:0 was forgotten before.") || !slices.Equal(res.Before, []string{"01a234f8:0"}) {
		t.Errorf("forgotten again by its short id: %q, %s", text, structured)
	}
}

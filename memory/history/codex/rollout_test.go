package codex

import (
	"agentmem/memory/history"
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// testdata/messy.jsonl is a rollout Codex CLI 0.171.0 wrote against our
// scripted model (a session, a recall through MCP, and the session resumed:
// Codex appends to the same file), with home paths replaced and long
// instructions trimmed, followed by lines of our own in the shapes Codex
// writes: reasoning, a command execution, a web search, a file change, a
// reply in two parts, non-English text and emoji, an image-only prompt, a
// blank reply, a compaction, a CRLF line end, lines that are not JSON
// objects, an older release's id-less user_message / agent_message events,
// and a last line still being written (no newline).

const session = "01a234f8-ca51-7a82-b30f-0337fc92a0de"

type want struct{ id, role, text string }

var wantTurns = []want{
	{"01a234f8-d512-7512-b97b-03dfcbd2e7cb", "user", "first of resume"},
	{"01a234f8-ce7d-7852-8543-3d306aaf3d10/msg_29", "assistant", "Noted: first of resume"},
	{"01a234f7-647b-7263-b44c-687045248e82", "user", "Recall: where does my sister live?"},
	{"01a234f7-5e5d-7370-8780-6f5656d8b057/msg_16", "assistant", "I have read the memories."},
	{"01a234f9-013e-7fd3-b35c-4528e01b5366", "user", "second of resume"},
	{"01a234f8-f9d6-70b2-86fb-5d0661d75c33/msg_30", "assistant", "Noted: second of resume"},
	{"01a234fa-1111-7000-8000-000000000003", "user", "Mi hermana Ana se mudó a Lisboa 🇵🇹 en marzo. 日本語も少し話します。"},
	{"01a234fa-0000-7000-8000-000000000003/msg_1", "assistant", "Let me look at your notes first."},
	{"01a234fa-0000-7000-8000-000000000003/msg_2", "assistant", "¡Qué bien! Lisboa es preciosa 🌊 — 素晴らしい。\n\nYour notes agree: \"Ana: Lisbon\" and a backslash \\ path."},
	{"01a234fa-1111-7000-8000-000000000004", "user", "  keep this\n\tindented   exactly  \n"},
	{"", "assistant", "A reply without a message id."},
	{"", "user", "An older Codex wrote this prompt."},
	{"", "assistant", "And this reply."},
}

var lastTurn = want{"01a234fa-1111-7000-8000-000000000005", "user", "The last prompt, written without its newline yet"}

var wantSkipped = history.Skipped{
	"session_meta": 1, "turn_context": 3, "world_state": 2, "token_usage_record": 4, "compacted": 1,
	"model-side log (response_item)": 19,
	"event task_started":             4, "event task_complete": 4, "event thread_settings_applied": 3,
	"event token_count": 5, "event agent_reasoning": 1,
	"item McpToolCall": 1, "item CommandExecution": 1, "item Reasoning": 1, "item WebSearch": 1, "item FileChange": 1,
	"user_message user_instructions": 1, "empty": 2, "not JSON": 2,
}

func readMessy(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/messy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func checkTurns(t *testing.T, got []history.Turn, want []want) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			t.Errorf("turn %d missing: %+v", i, want[i])
		case i >= len(want):
			t.Errorf("turn %d not conversation: %+v", i, got[i])
		case want[i].id == "" && !strings.HasPrefix(got[i].ID, "codex-"):
			t.Errorf("turn %d: id %q, want one derived from the turn", i, got[i].ID)
		case want[i].id != "" && got[i].ID != want[i].id, got[i].Role != want[i].role, got[i].Text != want[i].text:
			t.Errorf("turn %d = %s %s %q, want %s %s %q", i, got[i].ID, got[i].Role, got[i].Text, want[i].id, want[i].role, want[i].text)
		case got[i].Session != session || got[i].CWD != "/home/user/project" || got[i].Time.IsZero():
			t.Errorf("turn %d: session %q, cwd %q, time %v", i, got[i].Session, got[i].CWD, got[i].Time)
		}
	}
}

func TestParseMessy(t *testing.T) {
	data := readMessy(t)
	res := Parse(data, false)
	checkTurns(t, res.Turns, wantTurns)
	if !maps.Equal(res.Skipped, wantSkipped) {
		t.Errorf("skipped:\n got %v\nwant %v", res.Skipped, wantSkipped)
	}
	if want := bytes.LastIndexByte(data, '\n') + 1; res.Consumed != want {
		t.Errorf("consumed %d bytes, want %d (every complete line, not the last one)", res.Consumed, want)
	}
	if want := bytes.Count(data, []byte{'\n'}); res.Lines != want {
		t.Errorf("read %d lines, want %d", res.Lines, want)
	}
	if notJSON := lineOf(data, "this line is not JSON"); !slices.Equal(res.Bad, []int{notJSON, notJSON + 1}) {
		t.Errorf("bad lines %v, want [%d %d]", res.Bad, notJSON, notJSON+1)
	}
	// a turn's own timestamp, to the millisecond
	if got := res.Turns[0].Time; !got.Equal(time.Date(2026, 12, 2, 4, 17, 32, 441e6, time.UTC)) {
		t.Errorf("first turn's time %v", got)
	}
	ids := map[string]bool{}
	for _, tu := range res.Turns {
		if ids[tu.ID] {
			t.Errorf("id %s twice", tu.ID)
		}
		ids[tu.ID] = true
	}
}

// lineOf is the 1-based number of the first line of data holding s.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	return bytes.Count(data[:i], []byte{'\n'}) + 1
}

func TestParseFinalReadsTheLastLine(t *testing.T) {
	data := readMessy(t)
	res := Parse(data, true)
	checkTurns(t, res.Turns, append(slices.Clone(wantTurns), lastTurn))
	if res.Consumed != len(data) {
		t.Errorf("consumed %d of %d bytes", res.Consumed, len(data))
	}
}

// Read in two parts cut anywhere (a hook reading while Codex writes), then
// the rest: the same turns with the same ids, none twice. An id does not
// depend on where a read starts.
func TestParseCutAnywhere(t *testing.T) {
	data := readMessy(t)
	whole := Parse(data, true)
	for cut := 0; cut <= len(data); cut += 97 {
		first := Parse(data[:cut], false)
		if first.Consumed > cut || (first.Consumed > 0 && data[first.Consumed-1] != '\n') {
			t.Fatalf("cut at %d: consumed %d, not a line end", cut, first.Consumed)
		}
		rest := Parse(data[first.Consumed:], true)
		got := append(first.Turns, rest.Turns...)
		if a, b := ids(got), ids(whole.Turns); a != b {
			t.Fatalf("cut at %d: read in two parts\n%s\nwant\n%s", cut, a, b)
		}
	}
}

func ids(turns []history.Turn) string {
	var b strings.Builder
	for _, t := range turns {
		fmt.Fprintf(&b, "%s %s %q %s\n", t.ID, t.Role, t.Text, t.Time.Format(time.RFC3339Nano))
	}
	return b.String()
}

// A prompt of several MB on one line is read whole.
func TestParseLongLine(t *testing.T) {
	long := strings.Repeat("Der Hund läuft am Strand 🐕.\n", 200_000)
	line := fmt.Sprintf(`{"timestamp":"2026-12-02T04:00:00Z","type":"event_msg","payload":{"type":"item_completed","turn_id":"t","item":{"type":"UserMessage","id":"u1","content":[{"type":"text","text":%q}]}}}`+"\n", long)
	res := Parse([]byte(line), false)
	if len(res.Turns) != 1 || res.Turns[0].Text != long || res.Consumed != len(line) {
		t.Fatalf("a %d-byte line: %d turns, consumed %d", len(line), len(res.Turns), res.Consumed)
	}
}

// A rollout truncated mid-line (Codex killed while writing) is read up to
// its last complete line; the next read, once the line is complete, reads
// the rest.
func TestParseTruncated(t *testing.T) {
	data := readMessy(t)
	i := bytes.Index(data, []byte("second of resume"))
	res := Parse(data[:i], false)
	if res.Consumed >= i || data[res.Consumed-1] != '\n' {
		t.Fatalf("consumed %d of a rollout cut at %d", res.Consumed, i)
	}
	for _, tu := range res.Turns {
		if strings.Contains(tu.Text, "second of") {
			t.Fatalf("half a line read as %q", tu.Text)
		}
	}
}

// A line that is a JSON object with a field of another type than Parse
// knows is left out for that reason, not counted as a line that is not
// JSON (history.WrongField).
func TestParseWrongTypedField(t *testing.T) {
	data := []byte(`{"timestamp":"2026-12-02T04:17:30Z","type":"event_msg","payload":{"type":"user_message","message":"kept"}}
{"timestamp":1764649050,"type":"event_msg","payload":{"type":"user_message","message":"dated by a number"}}
{"timestamp":"2026-12-02T04:17:31Z","type":["event_msg"],"payload":{}}
{"timestamp":"2026-12-02T04:17:32Z","type":"event_msg",
`)
	res := Parse(data, true)
	if len(res.Turns) != 1 || res.Turns[0].Text != "kept" {
		t.Errorf("turns %+v, want the first alone", res.Turns)
	}
	if !slices.Equal(res.Bad, []int{4}) {
		t.Errorf("lines not JSON: %v, want only the cut line 4", res.Bad)
	}
	want := history.Skipped{"field timestamp of an unexpected type": 1, "field type of an unexpected type": 1, "not JSON": 1}
	if !maps.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
}

// testdata/old.jsonl is a rollout of our own in the shape Codex CLI wrote
// before the envelope (until mid-2025): the session's meta first (id,
// timestamp, instructions, git), record_type state lines, and the
// model-side items as they are: the instructions and environment context
// Codex injects as user messages, reasoning, function calls and their
// output, a shell call, an assistant message in two parts, a developer
// message, an image with text and one alone, an empty reply, "yes" said
// twice, non-English text and emoji, a CRLF line end, a line that is not
// JSON and a blank one.

const oldSession = "5a1b2c3d-0000-4000-8000-00000000abcd"

func TestParseOldRollout(t *testing.T) {
	data, err := os.ReadFile("testdata/old.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res := Parse(data, true)
	want := []want{
		{"", "user", "Our payment provider is Adyen; the merchant account is ACME_EU."},
		{"", "assistant", "Got it: Adyen, merchant account ACME_EU."},
		{"", "user", "yes"},
		{"", "assistant", "Mi hermana Ana vive en Lisboa 🇵🇹 — 日本語も。"},
		{"", "user", "What is in this screenshot?"},
		{"", "user", "yes"},
		{"", "assistant", "  keep\n\tthis indented  "},
	}
	start := time.Date(2025, 5, 9, 18, 56, 41, 364e6, time.UTC)
	for i := range max(len(res.Turns), len(want)) {
		switch {
		case i >= len(res.Turns):
			t.Errorf("turn %d missing: %+v", i, want[i])
		case i >= len(want):
			t.Errorf("turn %d not conversation: %+v", i, res.Turns[i])
		case res.Turns[i].Role != want[i].role || res.Turns[i].Text != want[i].text || !strings.HasPrefix(res.Turns[i].ID, "codex-"):
			t.Errorf("turn %d = %s %s %q, want %s %q", i, res.Turns[i].ID, res.Turns[i].Role, res.Turns[i].Text, want[i].role, want[i].text)
		case res.Turns[i].Session != oldSession || res.Turns[i].CWD != "/home/user/proj" || !res.Turns[i].Time.Equal(start):
			t.Errorf("turn %d: session %q, cwd %q, time %v, want the meta's and the environment_context's", i, res.Turns[i].Session, res.Turns[i].CWD, res.Turns[i].Time)
		}
	}
	wantSkipped := history.Skipped{
		"session_meta": 1, "record_type state": 3,
		"context Codex injects (user_instructions)": 1, "context Codex injects (environment_context)": 1,
		"item reasoning": 1, "item function_call": 1, "item function_call_output": 1, "item local_shell_call": 1,
		`message of role "developer"`: 1, "input_image part": 2, "empty": 2, "not JSON": 1,
	}
	if !maps.Equal(res.Skipped, wantSkipped) {
		t.Errorf("skipped:\n got %v\nwant %v", res.Skipped, wantSkipped)
	}
	if notJSON := lineOf(data, "this line is not JSON"); !slices.Equal(res.Bad, []int{notJSON}) {
		t.Errorf("bad lines %v, want [%d]", res.Bad, notJSON)
	}
	// every id once ("yes" said twice has two), the same on every read and
	// after the file grows
	seen := map[string]bool{}
	for _, tu := range res.Turns {
		if seen[tu.ID] {
			t.Errorf("id %s twice", tu.ID)
		}
		seen[tu.ID] = true
	}
	more := append(slices.Clone(data), `{"type":"message","role":"user","content":[{"type":"input_text","text":"yes"}]}`+"\n"...)
	again := Parse(more, true)
	if len(again.Turns) != len(res.Turns)+1 || ids(again.Turns[:len(res.Turns)]) != ids(res.Turns) || seen[again.Turns[len(res.Turns)].ID] {
		t.Errorf("read again after a line more:\n%s\nwant\n%s and a new id", ids(again.Turns), ids(res.Turns))
	}
}

// The lines of an older rollout and of the envelope tell each other
// apart: an envelope line keeps its reading (its type, its payload, its
// timestamp), whatever fields it has of the older shape.
func TestParseOldAndEnvelopeLines(t *testing.T) {
	for _, tc := range []struct{ line, reason, text string }{
		{`{"id":"s1","timestamp":"2025-05-09T18:56:41Z","instructions":null}`, "session_meta", ""},
		{`{"id":"s1","instructions":null}`, "line without a type", ""},
		{`{"id":7,"timestamp":"2025-05-09T18:56:41Z"}`, "line without a type", ""},
		{`{"record_type":"state","id":"s1"}`, "record_type state", ""},
		{`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`, "", "hi"},
		{`{"type":"message","role":"user","content":[{"type":"input_text","text":"  <environment_context><cwd>/p</cwd></environment_context>"}]}`, "context Codex injects (environment_context)", ""},
		{`{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>x</INSTRUCTIONS>"}]}`, "context Codex injects (AGENTS.md instructions)", ""},
		{`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"<environment_context> as said"}]}`, "", "<environment_context> as said"},
		{`{"type":"message","role":"user","content":"hi"}`, "field content of an unexpected type", ""},
		{`{"type":"message","role":"system","content":[]}`, `message of role "system"`, ""},
		{`{"type":"world_state","timestamp":"2026-12-02T04:17:30Z"}`, "world_state", ""},
		{`{"type":"compacted","payload":{"message":"summary"}}`, "compacted", ""},
		{`{"timestamp":"2026-12-02T04:17:30Z","type":"event_msg","payload":{"type":"user_message","message":"kept"},"role":"x"}`, "", "kept"},
	} {
		res := Parse([]byte(tc.line+"\n"), false)
		text := ""
		if len(res.Turns) == 1 {
			text = res.Turns[0].Text
		}
		if text != tc.text || tc.reason != "" && res.Skipped[tc.reason] != 1 || tc.reason == "" && len(res.Skipped) != 0 {
			t.Errorf("%s: turn %q, skipped %v; want %q, %q", tc.line, text, res.Skipped, tc.text, tc.reason)
		}
	}
}

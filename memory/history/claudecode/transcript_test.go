package claudecode

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// testdata/messy.jsonl is a transcript of our own in the shape Claude Code
// 2.1.328 writes: bookkeeping lines between the blocks of a reply, a reply
// of thinking, text and tool_use blocks under one message id, tool
// results, a subagent's sidechain, meta and command-wrapper lines,
// interruptions, synthetic and API-error replies, images, empty messages,
// non-English text and emoji (raw and \u-escaped), a CRLF line end, lines
// that are not JSON, a compaction summary, and a last line still being
// written (no newline).

const session = "7d3f6a10-2b4c-4e5f-8a9b-0c1d2e3f4a5b"

func uid(k int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", k) }

type want struct {
	id         int
	role, text string
}

// wantTurns are the conversation of messy.jsonl, verbatim, in order.
var wantTurns = []want{
	{1, "user", "I adopted a golden retriever named Biscuit last week."},
	{3, "assistant", "Congratulations on Biscuit! Let me check what I already know."},
	{6, "assistant", "I don't have anything about Biscuit yet.\n\nGolden retrievers love water:\n- swimming\n- fetch"},
	{8, "user", "Mi hermana Ana se mudó a Lisboa 🇵🇹 en marzo. 日本語も少し話します。"},
	{9, "assistant", "¡Qué bien! Lisboa es preciosa 🌊 — 素晴らしい。"},
	{17, "user", "What breed is the dog in this photo?"},
	{18, "assistant", "That looks like a golden retriever."},
	{30, "user", "  keep this\n\tindented   exactly  \n"},
	{31, "assistant", "Reading both files."},
	{36, "assistant", `Both files mention "tomatoes" and a backslash \ path.`},
	{37, "assistant", "A reply without a message id."},
}

// lastTurn is the line without its newline, read only when final.
var lastTurn = want{38, "user", "The last prompt, written without its newline yet"}

// wantSkipped is everything else, by reason.
var wantSkipped = Skipped{
	OwnLine("queue-operation"): 2, OwnLine("attachment"): 3, OwnLine("atis-latch"): 2, OwnLine("last-prompt"): 2,
	OwnLine("api-request-shape"): 1, OwnLine("api-request-blob"): 1, OwnLine("api-request"): 1, OwnLine("tools-used"): 1,
	OwnLine("system"): 1, OwnLine("cost-state"): 1, OwnLine("summary"): 1, OwnLine("file-history-snapshot"): 1, OwnLine("progress"): 1,
	"thinking block": 1, "redacted_thinking block": 1, "tool_use block": 3, "tool result": 3,
	"image block": 2, "system-reminder block": 1,
	"sidechain (subagent)": 2, "meta": 2, "command wrapper": 3, "compaction summary": 1,
	"interruption notice": 2, "synthetic message": 2, "empty": 5,
	"not a JSON object": 2, "line without a uuid": 1,
}

func readMessy(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/messy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func checkTurns(t *testing.T, got []Turn, want []want) {
	t.Helper()
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			t.Errorf("turn %d missing: %+v", i, want[i])
		case i >= len(want):
			t.Errorf("turn %d not conversation: %+v", i, got[i])
		case got[i].ID != uid(want[i].id) || got[i].Role != want[i].role || got[i].Text != want[i].text:
			t.Errorf("turn %d = %s %s %q, want %s %s %q", i, got[i].ID, got[i].Role, got[i].Text, uid(want[i].id), want[i].role, want[i].text)
		case got[i].Session != session || got[i].CWD != "/home/sam/src/garden" || got[i].Time.IsZero():
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
	if want := nonBlank(data[:res.Consumed]); res.Lines != want {
		t.Errorf("read %d lines, want %d", res.Lines, want)
	}
	if notJSON := lineOf(data, "half a line"); !slices.Equal(res.Bad, []int{notJSON, notJSON + 1}) {
		t.Errorf("bad lines %v, want [%d %d]", res.Bad, notJSON, notJSON+1)
	}
	// a turn's own timestamp, to the millisecond
	if got := res.Turns[0].Time; !got.Equal(time.Date(2026, 11, 20, 9, 0, 5, 35e6, time.UTC)) {
		t.Errorf("first turn's time %v", got)
	}
}

func nonBlank(data []byte) int {
	n := 0
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n
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
	if !maps.Equal(res.Skipped, wantSkipped) {
		t.Errorf("skipped:\n got %v\nwant %v", res.Skipped, wantSkipped)
	}
}

// Read in two parts cut anywhere (a hook reading while Claude Code writes),
// then the rest: every word of the conversation arrives once. A cut between
// the blocks of one reply makes two turns of it, each with its own id.
func TestParseCutAnywhere(t *testing.T) {
	data := readMessy(t)
	whole := Parse(data, true)
	for cut := 0; cut <= len(data); cut += 13 {
		first := Parse(data[:cut], false)
		if first.Consumed > cut || (first.Consumed > 0 && data[first.Consumed-1] != '\n') {
			t.Fatalf("cut at %d: consumed %d, not a line end", cut, first.Consumed)
		}
		rest := Parse(data[first.Consumed:], true)
		got := append(first.Turns, rest.Turns...)
		if a, b := conversation(got), conversation(whole.Turns); a != b {
			t.Fatalf("cut at %d: read in two parts\n%s\nwant\n%s", cut, a, b)
		}
		ids := map[string]bool{}
		for _, tu := range got {
			if ids[tu.ID] {
				t.Fatalf("cut at %d: id %s twice", cut, tu.ID)
			}
			ids[tu.ID] = true
		}
	}
}

// conversation is turns' texts in order, the texts of a reply's parts
// joined as Parse joins a reply's blocks.
func conversation(turns []Turn) string {
	var b strings.Builder
	for i, t := range turns {
		switch {
		case i > 0 && t.Role == "assistant" && turns[i-1].Role == "assistant":
			b.WriteString("\n\n" + t.Text)
			continue
		case i > 0:
			b.WriteString("\n--\n")
		}
		b.WriteString(t.Role + ": " + t.Text)
	}
	return b.String()
}

// Every line read on its own, as hooks each reading one new line would:
// the same conversation, nothing counted twice.
func TestParseLineByLine(t *testing.T) {
	data := readMessy(t)
	var got []Turn
	skipped := Skipped{}
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		res := Parse(data[:n], true)
		got = append(got, res.Turns...)
		skipped.Add(res.Skipped)
		data = data[n:]
	}
	if a, b := conversation(got), conversation(Parse(readMessy(t), true).Turns); a != b {
		t.Errorf("line by line\n%s\nwant\n%s", a, b)
	}
	if !maps.Equal(skipped, wantSkipped) {
		t.Errorf("skipped:\n got %v\nwant %v", skipped, wantSkipped)
	}
}

// A prompt of several MB on one line is read whole.
func TestParseLongLine(t *testing.T) {
	long := strings.Repeat("Der Hund läuft am Strand 🐕.\n", 200_000)
	line := fmt.Sprintf(`{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-11-20T09:00:00Z","message":{"role":"user","content":%q}}`+"\n", long)
	res := Parse([]byte(line), false)
	if len(res.Turns) != 1 || res.Turns[0].Text != long {
		t.Fatalf("a %d-byte prompt: %d turns", len(long), len(res.Turns))
	}
}

func TestParseEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "\r\n"} {
		if res := Parse([]byte(in), false); len(res.Turns) != 0 || res.Consumed != len(in) || len(res.Bad) != 0 {
			t.Errorf("Parse(%q) = %+v", in, res)
		}
	}
}

// testdata/queued.jsonl is a session in which the user typed while the
// model was running a tool: Claude Code (2.1.328) writes those prompts as
// queued_command attachments (after a queue-operation line that also
// holds the text, bookkeeping). A prompt typed in prompt mode is the
// user's turn, its text blocks only; a shell command, a meta forwarded
// prompt, a task's notice, an automatic continuation, a subagent's and a
// slash command are not.
func TestParseQueuedPrompts(t *testing.T) {
	data, err := os.ReadFile("testdata/queued.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res := Parse(data, false)
	checkTurns(t, res.Turns, []want{
		{1, "user", "Check the garden notes, please."},
		{2, "assistant", "Reading them."},
		{5, "user", "Also, remind me to water the tomatoes 🍅 tonight."},
		{6, "user", "And the basil, in this photo."},
		{12, "assistant", "Noted: the tomatoes tonight, and the basil."},
	})
	wantSkipped := Skipped{"tool_use block": 1, "tool result": 1, OwnLine("queue-operation"): 2, OwnLine("attachment"): 6, "image block": 1, "command wrapper": 1}
	if !maps.Equal(res.Skipped, wantSkipped) {
		t.Errorf("skipped:\n got %v\nwant %v", res.Skipped, wantSkipped)
	}
}

// A line that is a JSON object with a field of another type than Parse
// knows (a later Claude Code could change one) is a transcript line left
// out for that reason, not a line that is not JSON: the report names the
// field, and the input still reads as a transcript.
func TestParseWrongTypedField(t *testing.T) {
	data := []byte(`{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-11-02T10:00:00Z","message":{"role":"user","content":"first"}}
{"type":"user","uuid":"u2","sessionId":"s","timestamp":"2026-11-02T10:01:00Z","isSidechain":"no","message":{"role":"user","content":"second"}}
{"type":"user","uuid":"u3","sessionId":"s","timestamp":1793613720,"message":{"role":"user","content":"third"}}
{"type":"user","uuid":"u5","sessionId":"s","timestamp":"not-a-time","message":{"role":"user","content":"fifth"}}
[1, 2]
{"type":"user","uuid":"u4","sessionId":"s","timestamp":"2026-11-02T10:03:00Z","message":{"role":"user","content":"fourth"}}
`)
	res := Parse(data, true)
	var texts []string
	for _, tu := range res.Turns {
		texts = append(texts, tu.Text)
	}
	if !slices.Equal(texts, []string{"first", "fourth"}) {
		t.Errorf("turns %q, want first and fourth", texts)
	}
	if !slices.Equal(res.Bad, []int{5}) {
		t.Errorf("lines not JSON objects: %v, want only the array on line 5", res.Bad)
	}
	want := Skipped{"field isSidechain of an unexpected type": 1, "field timestamp of an unexpected type": 1, "field timestamp of an unexpected form": 1, "not a JSON object": 1}
	if !maps.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
}

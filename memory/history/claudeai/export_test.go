package claudeai

import (
	"agentmem/memory/history"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"
)

// testdata/conversations.json is an export of our own in the shape
// Claude.ai writes: text blocks around thinking, tool_use and tool_result
// blocks, an attachment with its text and a file, an old-style message
// with text and no blocks, an empty answer, a date out of range and one
// unreadable, Spanish, Japanese and emoji; a conversation with a
// regenerated answer (parent_message_uuid branches); an empty one.

func msg(k int) string { return fmt.Sprintf("b2c3d4e5-0000-4000-8000-%012d", k) }

func TestReadFixture(t *testing.T) {
	f, err := os.Open("testdata/conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cs []history.Conversation
	if err := Read(f, func(c history.Conversation) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 {
		t.Fatalf("%d conversations", len(cs))
	}
	d := func(s string) time.Time { t, _ := time.Parse(time.RFC3339Nano, s); return t }
	want := []history.Turn{
		{ID: msg(1), Role: "user", Text: "Mi hermana Ana se mudó a Lisboa en marzo. 日本語も少し話します。\n\n[notes.txt]\npacking list", Time: d("2024-03-01T10:00:00Z")},
		{ID: msg(2), Role: "assistant", Text: "¡Qué bien! Lisboa es preciosa 🌊\n\n素晴らしい。", Time: d("2024-03-01T10:00:05.5Z")},
		{ID: msg(3), Role: "user", Text: "An old-style message: text, no content blocks.", Time: d("2024-03-01T10:01:00Z")},
		{ID: msg(6), Role: "user", Text: "A date nobody can read.", Time: time.Time{}},
		{ID: msg(7), Role: "assistant", Text: "Noted 👍", Time: d("2024-03-01T10:02:00Z")},
	}
	c := cs[0]
	if c.ID != "c0ffee00-1111-4222-8333-444455556666" || c.Title != "Lisboa 🇵🇹" || !c.Create.Equal(d("2024-03-01T10:00:00Z")) {
		t.Errorf("conversation %+v", c)
	}
	if fmt.Sprint(c.Turns) != fmt.Sprint(want) {
		t.Errorf("turns\n%v\nwant\n%v", c.Turns, want)
	}
	wantSkipped := map[string]int{
		"attachment or file (its content is not imported)": 1, "thinking block": 1, "tool_use block": 1, "tool_result block": 1,
		"empty message": 1, history.DateOutOfRange: 1, "created_at unreadable (the turn is kept without its time)": 1,
	}
	if !maps.Equal(c.Skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", c.Skipped, wantSkipped)
	}
	var texts []string
	for _, t := range cs[1].Turns {
		texts = append(texts, t.Text)
	}
	if strings.Join(texts, "|") != "Name a pasta shape.|Farfalle 🦋|Why bow ties?" || cs[1].Skipped["other branch (edited or regenerated)"] != 1 {
		t.Errorf("branches: %q %v", texts, cs[1].Skipped)
	}
	if len(cs[2].Turns) != 0 {
		t.Errorf("empty conversation: %+v", cs[2])
	}
}

func TestReadBadInput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[{"uuid":"c1"}]`, "conversation 1 (uuid c1): chat_messages is missing: this is not a Claude.ai export"},
		{`[{"id":"c1","mapping":{}}]`, "this is a ChatGPT export (use --from chatgpt)"},
		{`[{"chat_messages":[]}]`, "conversation 1: uuid is missing"},
		{`[{"uuid":"c1","chat_messages":[{"sender":["human"]}]}]`, "conversation 1 (uuid c1): chat_messages.sender has the wrong type"},
		{`[{"uuid":"c1","chat_messages":[]},{"uuid":"c2","chat_m`, "truncated: the file ends inside element 2"},
		{`{"account":{},"conversations":[]}`, "the top level is an object"},
	} {
		err := Read(strings.NewReader(tc.in), func(history.Conversation) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// Claude.ai keeps a long paste as an attachment with its
// extracted_content, the message's text often empty: the paste is part of
// the user's turn, after what was typed, under its file name when it has
// one. Attachments without their text and files (images) are left out and
// counted, as is a message of nothing else.
func TestReadAttachments(t *testing.T) {
	const skip = "attachment or file (its content is not imported)"
	for _, tc := range []struct {
		name, msg, text string
		skipped         history.Skipped
	}{
		{"a paste alone", `"text":"","content":[{"type":"text","text":""}],"attachments":[{"file_name":"","file_size":30,"file_type":"txt","extracted_content":"SERVICE AGREEMENT\nClause 1: …"}]`,
			"SERVICE AGREEMENT\nClause 1: …", history.Skipped{}},
		{"typed, then a named document", `"text":"Is that normal?","attachments":[{"file_name":"old_contract.pdf","file_type":"pdf","extracted_content":"Old contract: 30 days."}]`,
			"Is that normal?\n\n[old_contract.pdf]\nOld contract: 30 days.", history.Skipped{}},
		{"two pastes and an image", `"content":[{"type":"text","text":"Compare:"}],"attachments":[{"extracted_content":"A"},{"file_name":"b.txt","extracted_content":"B"}],"files":[{"file_name":"photo.png"}]`,
			"Compare:\n\nA\n\n[b.txt]\nB", history.Skipped{skip: 1}},
		{"an attachment without its text", `"text":"See the file.","attachments":[{"file_name":"scan.pdf","extracted_content":""},{"file_name":"x","extracted_content":"  \n"},"not an object"]`,
			"See the file.", history.Skipped{skip: 3}},
		{"an image alone", `"text":"","files":[{"file_name":"photo.png"}]`, "", history.Skipped{skip: 1, "empty message": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := `[{"uuid":"c1","chat_messages":[{"uuid":"m1","sender":"human","created_at":"2025-02-03T08:53:20Z",` + tc.msg + `}]}]`
			var cs []history.Conversation
			if err := Read(strings.NewReader(in), func(c history.Conversation) error { cs = append(cs, c); return nil }); err != nil {
				t.Fatal(err)
			}
			text := ""
			if ts := cs[0].Turns; len(ts) == 1 {
				text = ts[0].Text
			}
			if text != tc.text {
				t.Errorf("turn %q, want %q", text, tc.text)
			}
			if !maps.Equal(cs[0].Skipped, tc.skipped) {
				t.Errorf("skipped %v, want %v", cs[0].Skipped, tc.skipped)
			}
		})
	}
}

package chatgpt

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
// ChatGPT writes: a hidden system message and custom instructions, a
// regenerated answer and an edited question (branches), a browsing tool
// call and its result, an image with an attachment, an empty answer,
// reasoning, a message without create_time and one with a clock gone
// wrong, Russian, Japanese, Spanish and emoji; an old conversation without
// current_node; one of a system message only.

func readAll(t *testing.T, path string) []history.Conversation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []history.Conversation
	if err := Read(f, func(c history.Conversation) error { out = append(out, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func nodeID(k int) string { return fmt.Sprintf("a1b2c3d4-0000-4000-8000-%012d", k) }

func TestReadFixture(t *testing.T) {
	cs := readAll(t, "testdata/conversations.json")
	if len(cs) != 3 {
		t.Fatalf("%d conversations, want 3", len(cs))
	}
	at := func(s float64) time.Time {
		return time.Unix(1700000000, 0).Add(time.Duration(s * float64(time.Second))).UTC()
	}
	want := []history.Turn{
		{ID: nodeID(3), Role: "user", Text: "I adopted a golden retriever named Biscuit last week.", Time: at(1.123456)},
		{ID: nodeID(5), Role: "assistant", Text: "Congratulations on Biscuit! 🎉", Time: at(9.5)},
		{ID: nodeID(8), Role: "user", Text: "Where should I walk him in Lisbon?", Time: at(70)},
		{ID: nodeID(11), Role: "assistant", Text: "Try Parque Eduardo VII — 公園は広いです。", Time: at(75)},
		{ID: nodeID(12), Role: "user", Text: "What breed is this? Ésta es mi foto.", Time: at(120)},
		{ID: nodeID(15), Role: "assistant", Text: "Looks like a golden retriever.\n\n- ears\n- coat", Time: at(125)},
		{ID: nodeID(16), Role: "user", Text: "No time on this one.", Time: time.Time{}},
	}
	c := cs[0]
	if c.ID != "6760a1b2-0c3d-8004-9e5f-1a2b3c4d5e6f" || c.Title != "Biscuit 🐶" || !c.Create.Equal(at(0)) || c.Index != 1 {
		t.Errorf("conversation %+v", c)
	}
	for i := range max(len(want), len(c.Turns)) {
		if i >= len(c.Turns) || i >= len(want) || c.Turns[i].ID != want[i].ID || c.Turns[i].Role != want[i].Role || c.Turns[i].Text != want[i].Text || !c.Turns[i].Time.Equal(want[i].Time) {
			t.Errorf("turn %d: got %v, want %v", i, get(c.Turns, i), get(want, i))
		}
	}
	wantSkipped := map[string]int{
		"system message": 1, "hidden message": 1, "other branch (edited or regenerated)": 3, "tool call": 1, "tool message": 1,
		"image_asset_pointer part": 1, "attachment (the file is not in conversations.json)": 1, "empty message": 1,
		"thoughts content": 1, history.DateOutOfRange: 1,
	}
	if !maps.Equal(c.Skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", c.Skipped, wantSkipped)
	}
	// no current_node: the latest leaf
	if got := cs[1].Turns; len(got) != 2 || got[0].Text != "Какая погода в Москве? 天気はどう？" || got[1].Text != "Холодно ❄️, −5 °C." {
		t.Errorf("conversation without current_node: %v", got)
	}
	if len(cs[2].Turns) != 0 || cs[2].Skipped["system message"] != 1 {
		t.Errorf("system-only conversation: %+v", cs[2])
	}
}

func get(ts []history.Turn, i int) any {
	if i < len(ts) {
		return ts[i]
	}
	return "nothing"
}

func TestReadBadInput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, "the file is empty"},
		{`{"conversations": []}`, "the top level is an object"},
		{`"x"`, "the top level is a string"},
		{`[{"id":"c1","mapping":{}}, {"id":"c2","mapp`, "truncated: the file ends inside element 2 (which starts after byte 25)"},
		{`[{"id":"c1","mapping":{}},`, "truncated"},
		{`[{"id":"c1","mapping":{}}] x`, "more after the array's end"},
		{`[7]`, "conversation 1: the element is not a JSON object: this is not a ChatGPT export"},
		{`[{"id":"c1"}]`, "conversation 1 (id c1): mapping is missing: this is not a ChatGPT export"},
		{`[{"uuid":"c1","chat_messages":[]}]`, "this is a Claude.ai export (use --from claude-ai)"},
		{`[{"mapping":{}}]`, "conversation 1: id is missing"},
		{`[{"id":"c1","mapping":{"n":{"message":{"create_time":"yesterday"}}}}]`, "conversation 1 (id c1): mapping.message.create_time has the wrong type"},
	} {
		err := Read(strings.NewReader(tc.in), func(history.Conversation) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// A parent cycle, a parent missing from the mapping and a current_node
// not in it end the branch with a count, never a hang.
func TestReadBrokenTree(t *testing.T) {
	in := `[{"id":"c1","current_node":"b","mapping":{
	"a":{"id":"a","parent":"b","message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["A"]}}},
	"b":{"id":"b","parent":"a","message":{"author":{"role":"assistant"},"content":{"content_type":"text","parts":["B"]}}}}},
	{"id":"c2","current_node":"zz","mapping":{
	"x":{"id":"x","parent":"gone","children":[],"message":{"author":{"role":"user"},"create_time":1700000000,"content":{"content_type":"text","parts":["X"]}}}}}]`
	var cs []history.Conversation
	if err := Read(strings.NewReader(in), func(c history.Conversation) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(cs[0].Turns) != 2 || cs[0].Turns[0].Text != "A" || cs[0].Skipped["parent cycle"] != 1 {
		t.Errorf("cycle: %+v", cs[0])
	}
	if len(cs[1].Turns) != 1 || cs[1].Skipped["parent not in mapping"] != 1 || cs[1].Skipped["current_node not in mapping (latest leaf taken)"] != 1 {
		t.Errorf("missing nodes: %+v", cs[1])
	}
}

// A voice conversation's messages are multimodal_text of an
// audio_transcription part (what was said) beside the audio's pointer:
// the transcription is the turn's text, the audio is left out and counted.
func TestReadVoice(t *testing.T) {
	node := func(id, parent, role, parts string) string {
		return fmt.Sprintf(`%[1]q:{"id":%[1]q,"parent":%[2]q,"message":{"id":%[1]q,"author":{"role":%[3]q},"create_time":1700000000,"content":{"content_type":"multimodal_text","parts":[%[4]s]}}}`, id, parent, role, parts)
	}
	audio := `{"content_type":"audio_asset_pointer","asset_pointer":"sediment://file_1","size_bytes":100,"format":"wav"}`
	in := `[{"id":"v1","current_node":"d","mapping":{"r":{"id":"r","children":["a"]},` + strings.Join([]string{
		node("a", "r", "user", `{"content_type":"audio_transcription","text":"I'm training for the Berlin marathon.","direction":"in","decoding_id":null},`+audio),
		node("b", "a", "assistant", `{"content_type":"audio_transcription","text":"Great goal!","direction":"out"},`+audio),
		node("c", "b", "user", audio+`,{"content_type":"audio_transcription","text":"","direction":"in"}`),
		node("d", "c", "user", `"typed too",{"content_type":"audio_transcription","text":"and said","direction":"in"},{"content_type":"real_time_user_audio_video_asset_pointer"}`),
	}, ",") + `}}]`
	var cs []history.Conversation
	if err := Read(strings.NewReader(in), func(c history.Conversation) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tu := range cs[0].Turns {
		got = append(got, tu.ID+" "+tu.Role+" "+tu.Text)
	}
	want := []string{"a user I'm training for the Berlin marathon.", "b assistant Great goal!", "d user typed too\n\nand said"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("turns %q, want %q", got, want)
	}
	wantSkipped := map[string]int{"audio_asset_pointer part": 3, "audio_transcription part": 1, "empty message": 1, "real_time_user_audio_video_asset_pointer part": 1}
	if !maps.Equal(cs[0].Skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", cs[0].Skipped, wantSkipped)
	}
}

// A conversation whose mapping is null or missing is left out and
// counted, the others read; a file (or, with a Reader, every file of an
// export) none of whose conversations has a mapping is not a ChatGPT
// export.
func TestReadWithoutMapping(t *testing.T) {
	const (
		good   = `{"id":"c2","mapping":{"n":{"id":"n","message":{"author":{"role":"user"},"create_time":1700000000,"content":{"content_type":"text","parts":["kept"]}}}}}`
		null   = `{"id":"c1","title":"New chat","mapping":null,"current_node":null}`
		absent = `{"conversation_id":"c3","title":"x"}`
	)
	for _, tc := range []struct {
		name  string
		files []string
		read  string // the conversations read: id and turns, left out ones as "-id"
		err   string
	}{
		{"null before one with a mapping", []string{"[" + null + "," + good + "]"}, "-c1 c2:1", ""},
		{"missing after one with a mapping", []string{"[" + good + "," + absent + "]"}, "c2:1 -c3", ""},
		{"none has one", []string{"[" + null + "," + absent + "]"}, "-c1 -c3", "conversation 1 (id c1): mapping is missing: this is not a ChatGPT export"},
		{"one in a later file", []string{"[" + null + "]", "[" + absent + "," + good + "]"}, "-c1 -c3 c2:1", ""},
		{"none in any file", []string{"[" + absent + "]", "[" + null + "]"}, "-c3 -c1", "conversation 1 (id c3): mapping is missing"},
		{"an empty array", []string{"[]"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var read []string
			skipped := history.Skipped{}
			fn := func(c history.Conversation) error {
				skipped.Add(c.Skipped)
				if c.LeftOut {
					read = append(read, "-"+c.ID)
					if len(c.Turns) > 0 {
						t.Errorf("conversation %s left out with turns", c.ID)
					}
				} else {
					read = append(read, fmt.Sprintf("%s:%d", c.ID, len(c.Turns)))
				}
				return nil
			}
			var err error
			if len(tc.files) == 1 {
				err = Read(strings.NewReader(tc.files[0]), fn)
			} else {
				var x Reader
				for _, f := range tc.files {
					if err := x.Read(strings.NewReader(f), fn); err != nil {
						t.Fatal(err)
					}
				}
				err = x.Err()
			}
			if got := strings.Join(read, " "); got != tc.read {
				t.Errorf("read %q, want %q", got, tc.read)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
			if want := strings.Count(tc.read, "-"); skipped[withoutMapping] != want {
				t.Errorf("skipped %v, want %d %q", skipped, want, withoutMapping)
			}
		})
	}
}

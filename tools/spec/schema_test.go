package spec

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func args(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Every limit a schema declares is enforced, with an error that names the
// argument and the limit.
func TestValidate(t *testing.T) {
	long := strings.Repeat("é", 4097) // 4,097 characters, 8,194 bytes
	cases := []struct {
		tool, args, want string
	}{
		{"recall", `{}`, "query: is required"},
		{"recall", `{"query":""}`, "query: must not be empty"},
		{"recall", `{"query":"` + long + `"}`, "query: is 4097 characters; the limit is 4096"},
		{"recall", `{"query":"x","k":0}`, "k: must be at least 1 and at most 100, got 0"},
		{"recall", `{"query":"x","k":101}`, "k: must be at most 100, got 101"},
		{"recall", `{"query":"x","k":2.5}`, "k: must be a whole number, got 2.5"},
		{"recall", `{"query":"x","k":"ten"}`, "k: must be a number, got a string"},
		{"recall", `{"query":"x","pool":0}`, "pool: must be at least 1"},
		{"recall", `{"query":"x","weights":{"text":-1}}`, "weights.text: must be greater than 0 and at most 100, got -1"},
		{"recall", `{"query":"x","weights":{"text":1e308}}`, "weights.text: must be at most 100"},
		{"recall", `{"query":"x","weights":{"rank_constant":0}}`, "weights.rank_constant: must be at least 1"},
		{"recall", `{"query":"x","weights":{"bogus":1}}`, "weights.bogus: is not an argument"},
		{"recall", `{"query":"x","order":"random"}`, "order: must be one of relevance, chronological, recency"},
		{"recall", `{"query":"x","namespace":"no spaces"}`, `namespace: "no spaces" has a character outside`},
		{"recall", `{"query":"x","namespace":""}`, `namespace: must not be empty`},
		{"recall", `{"query":"x","limit":5}`, "limit: is not an argument of this tool"},
		{"recall", `{"query":"x","before":"` + strings.Repeat("9", 65) + `"}`, "before: is 65 characters; the limit is 64"},
		{"remember", `{}`, "messages: is required"},
		{"remember", `{"messages":[]}`, "messages: holds 0 items; at least 1 needed"},
		{"remember", `{"messages":"hello"}`, "messages: must be an array, got a string"},
		{"remember", `{"messages":[{"role":"user"}]}`, "messages[0].content: is required"},
		{"remember", `{"messages":[{"role":"user","content":"a"},{"role":"robot","content":"b"}]}`, "messages[1].role: must be one of user, assistant, system, tool"},
		{"remember", `{"messages":[{"role":"user","content":5}]}`, "messages[0].content: must be a string, got 5"},
		{"forget", `{"ids":[""]}`, "ids[0]: must not be empty"},
		{"forget", `{"all":"yes"}`, "all: must be true or false, got a string"},
	}
	for _, c := range cases {
		var err error
		a := args(t, c.args)
		switch c.tool {
		case "recall":
			err = Validate[RecallArgs](a)
		case "remember":
			err = Validate[RememberArgs](a)
		case "forget":
			err = Validate[ForgetArgs](a)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error containing %q", c.tool, c.args, err, c.want)
		}
		if _, ok := err.(*FieldError); err != nil && !ok {
			t.Errorf("%s %s: %T, want a *FieldError", c.tool, c.args, err)
		}
	}
}

func TestDecodeDefaultsAndValid(t *testing.T) {
	a := args(t, `{"query":"x","weights":{"text":2}}`)
	got, err := Decode[RecallArgs](a)
	if err != nil {
		t.Fatal(err)
	}
	// excerpt has a default, k none (the server takes one from the history)
	if got.K != 0 || got.Excerpt == nil || *got.Excerpt != 40 || got.Weights == nil || got.Weights.Text != 2 || got.Weights.Vector != 0 {
		t.Errorf("decoded %+v (weights %+v)", got, got.Weights)
	}
	if _, ok := a.(map[string]any)["excerpt"]; ok {
		t.Error("Decode wrote the default into the caller's arguments")
	}
	if _, err := Decode[TodayArgs](nil); err != nil {
		t.Errorf("today with no arguments: %v", err)
	}
	if _, err := Decode[RememberArgs](args(t, `{"messages":[{"role":"user","content":"hi","speaker":"Caroline","timestamp":"2023-05-08"}],"session_id":"s-1:a/b+c@d"}`)); err != nil {
		t.Errorf("a valid remember: %v", err)
	}
}

// The schema says what the checks enforce: limits, enums, defaults and
// which arguments are required, and never "null or T" for an optional one.
func TestSchemaShape(t *testing.T) {
	raw := string(SchemaJSON[RecallArgs]())
	for _, want := range []string{`"required":["query"]`, `"k":{"type":"integer","description"`, `"minimum":1,"maximum":100}`, `"default":40,"minimum":0,"maximum":100000`, `"exclusiveMinimum":0`, `"additionalProperties":false`} {
		if !strings.Contains(raw, want) {
			t.Errorf("recall schema lacks %s:\n%s", want, raw)
		}
	}
	if strings.Contains(raw, `"null"`) {
		t.Errorf("recall schema has a null type:\n%s", raw)
	}
}

// Arguments as the JSON a call carried decode over the defaults: a value
// given (even 0) is kept, a default fills only what is absent.
func TestDecodeRawOverDefaults(t *testing.T) {
	got, err := Decode[RecallArgs](json.RawMessage(`{"query":"x","excerpt":0,"weights":{"time":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got.K != 0 || got.Excerpt == nil || *got.Excerpt != 0 || got.Weights.Time == nil || *got.Weights.Time != 0 {
		t.Errorf("decoded %+v (weights %+v)", got, got.Weights)
	}
	if _, err := Decode[RecallArgs](json.RawMessage(`{"query":"x","k":0}`)); err == nil || err.Error() != "k: must be at least 1 and at most 100, got 0" {
		t.Errorf("k=0: %v", err)
	}
	if got, err := Decode[TodayArgs](json.RawMessage(`null`)); err != nil || got != (TodayArgs{}) {
		t.Errorf("null arguments: %+v, %v", got, err)
	}
}

// A default below the top level is refused when the schema is made:
// Decode could not apply it.
func TestNestedDefaultRefused(t *testing.T) {
	type inner struct {
		N int `json:"n,omitempty" schema:"default=1"`
	}
	type outer struct {
		In *inner `json:"in,omitempty"`
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "below the top level") {
			t.Errorf("panic %v, want one about a nested default", p)
		}
	}()
	Schema[outer]()
}

// A whole number written as 10.0 or 1e1 is an integer to JSON Schema, so
// to the checks, and decodes as one: the browser's API, whose body is
// decoded first, always took it; a tool call's raw arguments did not.
func TestDecodeWholeNumbersWrittenAsFloats(t *testing.T) {
	for _, raw := range []string{`{"query":"x","k":10.0}`, `{"query":"x","k":1e1}`, `{"query":"x","k":1E1,"context":1.0,"pool":2e1}`} {
		got, err := Decode[RecallArgs](json.RawMessage(raw))
		if err != nil || got.K != 10 {
			t.Errorf("%s: k %d, %v", raw, got.K, err)
		}
	}
	if _, err := Decode[RecallArgs](json.RawMessage(`{"query":"x","k":10.5}`)); err == nil || err.Error() != "k: must be a whole number, got 10.5" {
		t.Errorf("k 10.5: %v", err)
	}
	got, err := Decode[RememberArgs](json.RawMessage(`{"messages":[{"role":"user","content":"hi"}],"turn":3.0}`))
	if err != nil || got.Turn == nil || *got.Turn != 3 {
		t.Errorf("turn 3.0: %+v, %v", got.Turn, err)
	}
}

// Bytes that are not UTF-8 in a call's arguments are refused, naming the
// string that holds them: encoding/json would read them as U+FFFD, and a
// memory would hold a text that is not the one sent.
func TestDecodeRefusesBytesNotUTF8(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{"{\"messages\":[{\"role\":\"user\",\"content\":\"ok\"},{\"role\":\"user\",\"content\":\"caf\xe9 au lait\"}]}", "messages[1].content: is not valid UTF-8 (byte 0xe9)"},
		{"{\"query\":\"\xff\xfe\"}", "query: is not valid UTF-8 (byte 0xff)"},
		// half a surrogate pair, which encoding/json reads as U+FFFD
		{`{"messages":[{"role":"user","content":"a\ud800b"}]}`, `messages[0].content: holds \ud800, half of a UTF-16 surrogate pair`},
		{`{"query":"x \udc00"}`, `query: holds \udc00, half of a UTF-16 surrogate pair`},
		{`{"query":"\ud83d\ude00 \ud83d"}`, `query: holds \ud83d, half of`},
		{`{"query":"\ud800x\udc00"}`, `query: holds \ud800, half of`},
		{"{\"query\":\"x\",\"weights\":{\"te\xffxt\":1}}", "weights.te\ufffdxt: (a name) is not valid UTF-8"},
		{"{\"messages\":[{\"role\":\"user\",\"content\":\"ok\",\"speaker\":\"Ren\xe9e\"}]}", "messages[0].speaker: is not valid UTF-8"},
	} {
		var err error
		if strings.HasPrefix(c.raw, `{"messages"`) {
			_, err = Decode[RememberArgs](json.RawMessage(c.raw))
		} else {
			_, err = Decode[RecallArgs](json.RawMessage(c.raw))
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.raw, err, c.want)
		}
	}
	// a whole pair, and a backslash before "ud800", are text
	got, err := Decode[RecallArgs](json.RawMessage(`{"query":"\\ud800 \ud83d\ude00 \u00e9"}`))
	if err != nil || got.Query != `\ud800 😀 é` {
		t.Errorf("a pair and an escaped backslash: %q, %v", got.Query, err)
	}
	if _, err := Decode[RememberArgs](json.RawMessage(`{"messages":[{"role":"user","content":"café \ufffd 東京 🙂"}]}`)); err != nil {
		t.Errorf("UTF-8 text, U+FFFD itself included: %v", err)
	}
}

// A number too large for a float64 is an error naming the argument that
// holds it, in a call's arguments and in a whole tools/call request (which
// mcp-go would otherwise refuse naming none).
func TestNumbersOutOfRange(t *testing.T) {
	if _, err := Decode[RememberArgs](json.RawMessage(`{"turn":1e400,"messages":[{"role":"user","content":"x"}]}`)); err == nil || err.Error() != "turn: 1e400 is out of the range of a number" {
		t.Errorf("turn 1e400: %v", err)
	}
	if _, err := Decode[RecallArgs](json.RawMessage(`{"query":"x","k":` + strings.Repeat("9", 320) + `}`)); err == nil || !strings.HasPrefix(err.Error(), "k: 9999") {
		t.Errorf("k of 320 digits: %v", err)
	}
	if _, err := Decode[RecallArgs](json.RawMessage(`{"query":"x","weights":{"text":1.5e-300}}`)); err != nil {
		t.Errorf("a tiny weight, in a float64's range and the schema's: %v", err)
	}
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"x","weights":{"text":-2e308}}}}`
	if err := OutOfRange([]byte(req)); err == nil || !strings.HasPrefix(err.Error(), "weights.text: -2e308") {
		t.Errorf("a request with weights.text -2e308: %v", err)
	}
	for _, ok := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"1e400","k":1e2}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":1e400}}`,
	} {
		if err := OutOfRange([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

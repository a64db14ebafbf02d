package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// setup writes a settings file back in the user's key order and
// indentation, new keys after theirs (a new-user trial found every key
// sorted and 4-space files rewritten with 2); a file it creates reads as
// encoding/json's indented output, its text as is.
func TestEncodeDocLikeKeepsTheUsersLayout(t *testing.T) {
	old := []byte("{\n    \"zeta\": 1,\n    \"mcpServers\": {\n        \"zz\": {\"command\": \"z\"},\n        \"aa\": {\"command\": \"a\"}\n    },\n    \"alpha\": [true, {\"y\": 1, \"x\": 2}]\n}\n")
	doc, err := decodeDoc(old)
	if err != nil {
		t.Fatal(err)
	}
	doc["mcpServers"].(map[string]any)["agentmem"] = map[string]any{"command": "agentmem", "args": []any{"serve"}}
	doc["hooks"] = map[string]any{"Stop": []any{}}
	got := string(encodeDocLike(doc, old))
	want := `{
    "zeta": 1,
    "mcpServers": {
        "zz": {
            "command": "z"
        },
        "aa": {
            "command": "a"
        },
        "agentmem": {
            "args": [
                "serve"
            ],
            "command": "agentmem"
        }
    },
    "alpha": [
        true,
        {
            "y": 1,
            "x": 2
        }
    ],
    "hooks": {
        "Stop": []
    }
}
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// a new file: what encoding/json writes, indented by two, ">" as is
	fresh := map[string]any{"b": []any{"x > y && z", json.Number("12345678901234567890")}, "a": map[string]any{}, "c": []any{}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(fresh)
	if got := string(encodeDocLike(fresh, nil)); got != b.String() {
		t.Errorf("a new file:\n%s\nwant\n%s", got, b.String())
	}
	if !strings.Contains(b.String(), "x > y && z") {
		t.Errorf("the reference escaped the text: %s", b.String())
	}
}

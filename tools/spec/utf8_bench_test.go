package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// The check of a call's raw JSON for bytes that are not UTF-8, on the
// largest call remember takes (8 MiB of content).
func BenchmarkNotUTF8(b *testing.B) {
	raw, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": strings.Repeat("café au lait, 東京 ", 1<<19/2)}}})
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := notUTF8(raw); err != nil {
			b.Fatal(err)
		}
	}
}

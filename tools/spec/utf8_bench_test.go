package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// The check of a call's raw JSON for bytes that are not UTF-8, on the
// largest call remember takes (8 MiB of content), beside one of the JSON
// decodes Decode makes of the same call (the reference).
func BenchmarkNotUTF8(b *testing.B) {
	raw, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": strings.Repeat("café au lait, 東京 ", 1<<19/2)}}})
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if err := notUTF8(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("range", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if err := outOfRange(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

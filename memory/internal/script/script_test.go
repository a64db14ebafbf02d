package script

import (
	"strings"
	"testing"
)

// Each character of a script written without spaces is a word of its
// own; the runs between them stay whole, and glued says where no space
// stood.
func TestPieces(t *testing.T) {
	for w, want := range map[string]string{
		"lake":                   "lake",
		"Paris東京":                "Paris +東 +京",
		"猫が好き":                   "猫 +が +好 +き",
		"コーヒーを2杯":                "コ +ー +ヒ +ー +を +2 +杯",
		"「小花」。":                  "「 +小 +花 +」。",
		"안녕하세요":                  "안녕하세요",
		"café":                   "café",
		"東京Tower東京":              "東 +京 +Tower +東 +京",
		strings.Repeat("a", 60):  strings.Repeat("a", 24) + " +" + strings.Repeat("a", 24) + " +" + strings.Repeat("a", 12),
		strings.Repeat("여권", 25): strings.Repeat("여권", 12) + " +" + strings.Repeat("여권", 12) + " +여권",
	} {
		var got []string
		Pieces(w, func(p string, glued bool) {
			if glued {
				p = "+" + p
			}
			got = append(got, p)
		})
		if s := strings.Join(got, " "); s != want {
			t.Errorf("Pieces(%q) = %q, want %q", w, s, want)
		}
	}
}

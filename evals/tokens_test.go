package evals

import "testing"

func TestTokenizerO200k(t *testing.T) {
	tok, err := NewTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	// Reference counts from OpenAI's tiktoken 1.0.22 (o200k_base).
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Today is Tuesday, 30 May 2023.", 11},
		{"[2023-05-08 Mon · session session_1 · Caroline (user)]\nI went to a LGBTQ support group yesterday and it was so powerful.", 32},
		{"Héllo 👋🏽 naïve café — 12345678 tokens!!\n\n  indented", 20},
	} {
		if got := tok.Count(tc.text); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

package memory

import (
	"strings"
	"testing"
)

// An excerpt holds the query's words and what follows them: the answer to
// a question usually comes after the words it shares with the question.
func TestExcerptKeepsWhatFollowsTheMatch(t *testing.T) {
	text := "I spent most of the morning at the office going through the quarterly numbers with the team, " +
		"then had a long lunch with my sister downtown where we talked about her new job and the trip we are planning. " +
		"In the evening I finally adopted a grey kitten named Pixel from the shelter on Elm Street."
	for _, c := range []struct{ query, want string }{
		{"what is the kitten's name", "Pixel"},
		{"which shelter did the kitten come from", "Elm Street"},
		{"what did I talk about with my sister", "new job"},
	} {
		got := excerpt(text, c.query, 40)
		if got == "" {
			t.Fatalf("%q: no excerpt of a %d-word text", c.query, len(strings.Fields(text)))
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%q: excerpt %q lacks %q", c.query, got, c.want)
		}
	}
}

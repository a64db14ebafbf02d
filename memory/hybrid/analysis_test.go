package hybrid

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
)

// sameTokens fails t when the analyzers named a and b make different
// tokens of text (twice each: the second time from remembered stems).
func sameTokens(t *testing.T, m *mapping.IndexMappingImpl, a, b, text string) {
	t.Helper()
	show := func(ts analysis.TokenStream) string {
		var s strings.Builder
		for _, tok := range ts {
			fmt.Fprintf(&s, "%q@%d[%d:%d]t%d ", tok.Term, tok.Position, tok.Start, tok.End, tok.Type)
		}
		return s.String()
	}
	for range 2 {
		// each its own copy: filters work in place
		want := show(m.AnalyzerNamed(a).Analyze([]byte(text)))
		got := show(m.AnalyzerNamed(b).Analyze([]byte(text)))
		if got != want {
			t.Fatalf("%s and %s differ on %q:\n%s\n%s", a, b, text, want, got)
		}
	}
}

// The analyzers of LeanMapping make exactly the tokens of bleve's en and
// standard analyzers: on the word-break cases of UAX #29 in ASCII, on
// random strings of the characters that matter to it, and on text that is
// not ASCII (which bleve's own tokenizer segments).
func TestAnalyzersSameTokens(t *testing.T) {
	m := mapping.NewIndexMapping()
	cases := []string{
		"", " ", "a", "_", "__", "1", "_1_", "a_", "1_a", "a1", "1a",
		"The dogs' owner's 3.14 apples, 1,000,000 and 1;2 or a.b.c e.g. U.S.A. don't can't I'm",
		"foo:bar a:1 1:2 a.1 1.a a'b 1'2 a'1 x.. ..x 'quoted' \"double\" a__b 1__2 a_.b",
		"snake_case_name CamelCase HTTP2 v1.2.3 192.168.0.1 10:30am 5pm 3rd 1990s $40 50% #tag @user",
		"line one\nline two\r\nline three\ttab  two  spaces",
		"running runs ran easily fairly generously conditional relational caresses ponies",
		"It’s café naïve — “smart quotes” 東京 カタカナ 한국어 😀 emoji",
	}
	for _, c := range cases {
		sameTokens(t, m, en.AnalyzerName, AnalyzerEnglish, c)
		sameTokens(t, m, standard.Name, AnalyzerStandard, c)
	}
	alphabet := []string{"a", "B", "z", "0", "7", ".", "'", ":", ",", ";", "_", " ", "\n", "\r", "-", "\"", "s", "ing", "ed", "ly", "ation", "é", "’"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		sameTokens(t, m, en.AnalyzerName, AnalyzerEnglish, b.String())
		sameTokens(t, m, standard.Name, AnalyzerStandard, b.String())
	}
}

func FuzzAnalyzersSameTokens(f *testing.F) {
	f.Add("The dogs' owner's 3.14 apples, a.b:c_1")
	f.Add("a'b 1,2 x_y ’s")
	m := mapping.NewIndexMapping()
	f.Fuzz(func(t *testing.T, text string) {
		sameTokens(t, m, en.AnalyzerName, AnalyzerEnglish, text)
		sameTokens(t, m, standard.Name, AnalyzerStandard, text)
	})
}

// BenchmarkAnalyzers compares the analyzers with bleve's on a turn of
// conversation. On LongMemEval's turns, in one run: en 52-80 µs per turn,
// agentmem_en 23 µs once its stems are remembered; standard 45 µs,
// agentmem_standard 21 µs.
func BenchmarkAnalyzers(b *testing.B) {
	turn := []byte(strings.Repeat("I've been thinking about getting a new bike for my 45-minute commute; my old one's gears keep slipping. "+
		"Could you compare the Trek FX 3 and the Specialized Sirrus 2.0, roughly $850 each, for comfort on rough roads? ", 4))
	m := mapping.NewIndexMapping()
	for _, name := range []string{en.AnalyzerName, AnalyzerEnglish, standard.Name, AnalyzerStandard} {
		a := m.AnalyzerNamed(name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				a.Analyze(turn)
			}
		})
	}
}

// panicky is an analyzer with a bug: it panics on every text.
type panicky struct{}

func (panicky) Analyze([]byte) analysis.TokenStream { panic("a bug in analysis") }

// A panic in our analyzers (which run in the index's own goroutines,
// where nothing recovers it) gives the tokens of bleve's twin analyzer
// instead of ending the process; both registered analyzers are guarded.
func TestAnalyzerPanicFallsBackToBleve(t *testing.T) {
	var logged bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	m := mapping.NewIndexMapping()
	for _, pair := range [][2]string{{AnalyzerEnglish, en.AnalyzerName}, {AnalyzerStandard, standard.Name}} {
		g, ok := m.AnalyzerNamed(pair[0]).(guarded)
		if !ok {
			t.Fatalf("%s is a %T, not guarded", pair[0], m.AnalyzerNamed(pair[0]))
		}
		g.Analyzer = panicky{}
		text := "The dogs' owners were RUNNING to 3.14 cafés"
		var got, want []string
		for _, tok := range g.Analyze([]byte(text)) {
			got = append(got, string(tok.Term))
		}
		for _, tok := range m.AnalyzerNamed(pair[1]).Analyze([]byte(text)) {
			want = append(want, string(tok.Term))
		}
		if len(want) == 0 || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s after a panic: %q, want %s's %q", pair[0], got, pair[1], want)
		}
	}
	if n := strings.Count(logged.String(), "a bug in analysis"); n != 2 {
		t.Errorf("logged the panic %d times, want 2:\n%s", n, logged.String())
	}
}

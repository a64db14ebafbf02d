package hybrid

import (
	"bytes"
	"hash/maphash"
	"log/slog"
	"runtime/debug"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// Faster twins of bleve's "en" and "standard" analyzers, for LeanMapping:
// the same tokens (TestAnalyzersSameTokens, FuzzAnalyzersSameTokens), at
// about half the cost on English text. Analysis is most of what indexing a
// memory costs, and bleve's versions spend it in two places: the Unicode
// word segmenter (a generated state machine over UTF-8, run on text that is
// almost all ASCII) and the Porter stemmer (which converts every token to
// runes and back, though a conversation repeats the same few thousand
// words). Here ASCII text is segmented by the same rules (UAX #29 as
// blevesearch/segment implements them) in a plain loop, any other text by
// bleve's tokenizer, and stems are remembered.
const (
	AnalyzerEnglish  = "agentmem_en"
	AnalyzerStandard = "agentmem_standard"
)

func init() {
	for name, ctor := range map[string]registry.AnalyzerConstructor{
		AnalyzerEnglish:  englishAnalyzer,
		AnalyzerStandard: standardAnalyzer,
	} {
		if err := registry.RegisterAnalyzer(name, ctor); err != nil {
			panic(err)
		}
	}
}

// englishAnalyzer is en.AnalyzerConstructor's chain with the ASCII
// tokenizer and the remembering stemmer.
func englishAnalyzer(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
	filters, err := tokenFilters(cache, en.PossessiveName, lowercase.Name, en.StopName)
	if err != nil {
		return nil, err
	}
	return guard(cache, en.AnalyzerName, &analysis.DefaultAnalyzer{
		Tokenizer:    asciiTokenizer{fallback: unicode.NewUnicodeTokenizer()},
		TokenFilters: append(filters, stems),
	})
}

// standardAnalyzer is standard.AnalyzerConstructor's chain with the ASCII
// tokenizer.
func standardAnalyzer(_ map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
	filters, err := tokenFilters(cache, lowercase.Name, en.StopName)
	if err != nil {
		return nil, err
	}
	return guard(cache, standard.Name, &analysis.DefaultAnalyzer{
		Tokenizer:    asciiTokenizer{fallback: unicode.NewUnicodeTokenizer()},
		TokenFilters: filters,
	})
}

// guard returns a, which reads a text as bleve's analyzer named twin
// does, read by twin itself should a's own code panic.
func guard(cache *registry.Cache, twin string, a analysis.Analyzer) (analysis.Analyzer, error) {
	fallback, err := cache.AnalyzerNamed(twin)
	if err != nil {
		return nil, err
	}
	return guarded{a, fallback}, nil
}

// guarded is an analyzer that, should it panic (a bug: the analyzers
// above are fuzzed against bleve's), gives the tokens of its fallback,
// bleve's analyzer whose tokens it makes, and logs why. Analysis runs in
// the index's own goroutines, where no caller can recover a panic: it
// ended the process at a write, at Close, and again replaying the
// journal at every start. (A filter may have lowercased the input in
// place before the panic; both analyzers lowercase it first anyway.)
type guarded struct {
	analysis.Analyzer
	fallback analysis.Analyzer
}

func (g guarded) Analyze(input []byte) (ts analysis.TokenStream) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("analysing a text for the text index failed; bleve's own analyzer read it instead",
				"panic", p, "stack", string(debug.Stack()))
			ts = g.fallback.Analyze(input)
		}
	}()
	return g.Analyzer.Analyze(input)
}

func tokenFilters(cache *registry.Cache, names ...string) ([]analysis.TokenFilter, error) {
	var out []analysis.TokenFilter
	for _, n := range names {
		f, err := cache.TokenFilterNamed(n)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Word break classes of the ASCII characters (UAX #29); every other ASCII
// character ends a word and is never part of one.
const (
	wbOther = iota
	wbLetter
	wbDigit
	wbMidLetter  // ':'  between letters
	wbMidNum     // ',' ';'  between digits
	wbMidNumLet  // '.' '\'' between letters or between digits
	wbExtendNumb // '_'  joins anything of a word
)

var wordBreak = func() (t [128]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = wbLetter, wbLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = wbDigit
	}
	t[':'] = wbMidLetter
	t[','], t[';'] = wbMidNum, wbMidNum
	t['.'], t['\''] = wbMidNumLet, wbMidNumLet
	t['_'] = wbExtendNumb
	return t
}()

// asciiTokenizer is bleve's unicode tokenizer for ASCII input, and that
// tokenizer itself for any other.
type asciiTokenizer struct{ fallback analysis.Tokenizer }

func (t asciiTokenizer) Tokenize(input []byte) analysis.TokenStream {
	for _, c := range input {
		if c >= 0x80 {
			return t.fallback.Tokenize(input)
		}
	}
	var out analysis.TokenStream
	var buf []analysis.Token
	pos := 1
	for i := 0; i < len(input); {
		last := wordBreak[input[i]]
		if last != wbLetter && last != wbDigit && last != wbExtendNumb {
			i++
			continue
		}
		start, letters, digits := i, last == wbLetter, last == wbDigit
		for i++; i < len(input); {
			c := wordBreak[input[i]]
			switch {
			case c == wbLetter || c == wbDigit || c == wbExtendNumb:
				// WB5, WB8, WB9, WB10, WB13a, WB13b
			case last == wbLetter && (c == wbMidLetter || c == wbMidNumLet) &&
				i+1 < len(input) && wordBreak[input[i+1]] == wbLetter:
				i++ // WB6, WB7
				c = wbLetter
			case last == wbDigit && (c == wbMidNum || c == wbMidNumLet) &&
				i+1 < len(input) && wordBreak[input[i+1]] == wbDigit:
				i++ // WB11, WB12
				c = wbDigit
			default:
				goto end
			}
			letters = letters || c == wbLetter
			digits = digits || c == wbDigit
			last = c
			i++
		}
	end:
		if len(buf) == 0 {
			buf = make([]analysis.Token, min(256, 1+(len(input)-i)/4))
		}
		tok := &buf[0]
		buf = buf[1:]
		tok.Term, tok.Start, tok.End, tok.Position = input[start:i], start, i, pos
		// a run without letters but with a digit is a number; underscores
		// alone make a word
		tok.Type = analysis.AlphaNumeric
		if digits && !letters {
			tok.Type = analysis.Numeric
		}
		out = append(out, tok)
		pos++
	}
	return out
}

// stemmer is bleve's porter token filter remembering its stems: the
// stem of a word is the same wherever it occurs. It remembers them in a
// table of stemSlots entries, each word in the slot of its hash, a later
// word replacing an earlier one in the same slot; a conversation's common
// words stay. (A sync.Map cost more than the stemming it saved.)
type stemmer struct {
	seed  maphash.Seed
	slots [stemSlots]atomic.Pointer[stemmed]
}

type stemmed struct {
	word string
	stem []byte // shared by the tokens it stems: never modified
}

const stemSlots = 1 << 16

var stems = &stemmer{seed: maphash.MakeSeed()}

func (s *stemmer) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, tok := range input {
		if tok.KeyWord {
			continue
		}
		slot := &s.slots[maphash.Bytes(s.seed, tok.Term)%stemSlots]
		if e := slot.Load(); e != nil && e.word == string(tok.Term) {
			tok.Term = e.stem
			continue
		}
		word := string(tok.Term)
		tok.Term = analysis.BuildTermFromRunes(porterstemmer.StemWithoutLowerCasing(bytes.Runes(tok.Term)))
		slot.Store(&stemmed{word: word, stem: tok.Term})
	}
	return input
}

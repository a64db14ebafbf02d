package uselite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer is a port of the Universal Sentence Encoder tokenizer of
// TensorFlow.js (tfjs-models universal-sentence-encoder, also shipped by
// @energetic-ai/embeddings): a SentencePiece-style Viterbi segmentation over
// vocab.json, a list of [piece, log-probability] pairs whose index is the
// token id. It is ported as it is, quirks included, because the golden
// vectors are defined by it:
//
//   - the input is NFKC-normalised; if not empty it gets a leading "▁" and
//     every U+0020 space (only that one) becomes "▁";
//   - the 15 pieces whose score is null in vocab.json score 0 (JavaScript
//     evaluates null + x as x);
//   - pieces are matched on Unicode code points with a trie built from the
//     vocabulary minus its first six (reserved) entries; a later duplicate
//     piece replaces an earlier one;
//   - at a position where no piece starts, the single character becomes the
//     unknown token (id 0) with score 0, which beats every real piece (whose
//     scores are negative);
//   - the best path to each end position is chosen over candidates in order
//     of start position, where a candidate wins if the best score so far is
//     exactly 0 or the candidate's score is >= it;
//   - the backward pass steps back by the JavaScript (UTF-16) length of the
//     chosen piece, and runs of unknown tokens are merged into one.
const (
	reservedSymbols = 6
	unknownID       = 0
	wordSeparator   = "\u2581" // '▁', LOWER ONE EIGHTH BLOCK
)

type trieNode struct {
	children map[rune]*trieNode
	end      bool
	score    float64
	id       int
}

type tokenizer struct {
	root *trieNode
	// jsLen is the JavaScript string length (UTF-16 code units) of each
	// vocabulary piece, used by the backward pass.
	jsLen []int
}

func newTokenizer(vocabJSON []byte) (*tokenizer, error) {
	var vocab [][2]any
	if err := json.Unmarshal(vocabJSON, &vocab); err != nil {
		return nil, fmt.Errorf("uselite: vocab.json: %w", err)
	}
	if len(vocab) <= reservedSymbols {
		return nil, fmt.Errorf("uselite: vocab.json has %d entries", len(vocab))
	}
	t := &tokenizer{root: &trieNode{}, jsLen: make([]int, len(vocab))}
	for i, e := range vocab {
		piece, ok1 := e[0].(string)
		score, ok2 := e[1].(float64)
		if e[1] == nil {
			// A few entries (":", "://", ...) have a null score, which
			// JavaScript's null + number treats as 0.
			score, ok2 = 0, true
		}
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("uselite: vocab.json entry %d is not [string, number]", i)
		}
		t.jsLen[i] = len(utf16.Encode([]rune(piece)))
		if i >= reservedSymbols {
			t.insert(piece, score, i)
		}
	}
	return t, nil
}

func (t *tokenizer) insert(piece string, score float64, id int) {
	if piece == "" {
		return
	}
	node := t.root
	for _, r := range piece {
		child := node.children[r]
		if child == nil {
			if node.children == nil {
				node.children = map[rune]*trieNode{}
			}
			child = &trieNode{}
			node.children[r] = child
		}
		node = child
	}
	node.end, node.score, node.id = true, score, id
}

// normalizeInput does what the reference tokenizer does to a string before
// segmenting it. Invalid UTF-8 (which a JavaScript string cannot hold)
// becomes U+FFFD.
func normalizeInput(text string) string {
	s := norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD"))
	if s == "" {
		return s
	}
	return wordSeparator + strings.ReplaceAll(s, " ", wordSeparator)
}

// encode returns the token ids of text, all of them (the model itself keeps
// only the first maxTokens).
func (t *tokenizer) encode(text string) []int {
	symbols := []rune(normalizeInput(text))
	n := len(symbols)
	if n == 0 {
		return []int{}
	}
	// Viterbi forward pass. The reference builds the whole lattice and then,
	// for each end position in turn, visits the pieces ending there in order
	// of their start. Visiting start positions in order and, from each, the
	// pieces that start there makes the same updates to best[e] in the same
	// order for every e, and best[s] is final when start s is reached (all
	// pieces ending at s start before it); it needs no lattice.
	best := make([]float64, n+1)
	words := make([]int, n+1)
	update := func(s, e, id int, score float64) {
		score += best[s]
		if best[e] == 0 || score >= best[e] {
			best[e] = score
			words[e] = id
		}
	}
	for s := 0; s < n; s++ {
		found := false
		node := t.root.children[symbols[s]]
		for e := s + 1; node != nil; e++ {
			if node.end {
				update(s, e, node.id, node.score)
				found = true
			}
			if e == n {
				break
			}
			node = node.children[symbols[e]]
		}
		if !found {
			// No piece starts here: the character is unknown.
			update(s, s+1, unknownID, 0)
		}
	}
	// Backward pass, then merge consecutive unknowns (in reverse order, as
	// the reference does) and reverse.
	var rev []int
	for i := n; i > 0; i -= t.jsLen[words[i]] {
		rev = append(rev, words[i])
	}
	ids := make([]int, 0, len(rev))
	prevUnknown := false
	for _, id := range rev {
		if !(prevUnknown && id == unknownID) {
			ids = append(ids, id)
		}
		prevUnknown = id == unknownID
	}
	slices.Reverse(ids)
	return ids
}

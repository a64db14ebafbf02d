// Package fake is a deterministic bag-of-words embedder for tests: texts
// that share words have similar vectors, and nothing is downloaded or learnt.
package fake

import (
	"cmp"
	"context"
	"hash/fnv"
	"math"
	"strings"
	"sync/atomic"
	"unicode"
)

// Embedder hashes lower-cased words into Dims buckets and normalises.
type Embedder struct {
	Name  string // ID is "fake:"+Name
	N     int    // dimensions; 0 means 64
	Calls atomic.Int64
	// Synonyms map a word to the word it should count as, so tests can
	// model a paraphrase that shares no word with its target.
	Synonyms map[string]string
}

func (e *Embedder) ID() string { return "fake:" + e.Name }

func (e *Embedder) Dims() int { return cmp.Or(e.N, 64) }

func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.Calls.Add(1)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vector(t)
	}
	return out, nil
}

func (e *Embedder) vector(text string) []float32 {
	v := make([]float32, e.Dims())
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if s, ok := e.Synonyms[w]; ok {
			w = s
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(len(v))]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	if n > 0 {
		inv := float32(1 / math.Sqrt(n))
		for i := range v {
			v[i] *= inv
		}
	}
	return v
}

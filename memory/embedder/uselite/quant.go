package uselite

import (
	"math"
	"sync"
)

// The int8 path. On CPUs with AVX-512 VNNI the dense layers of the two
// transformer layers run on 8-bit integers, which VPDPBUSD multiplies four
// times as fast as the float32 kernel: weights are quantized at load,
// symmetrically per output feature (w ≈ sw[j]·qw[i][j], qw in [-127, 127]),
// and each layer's input rows when the layer runs, asymmetrically per row
// (x ≈ sx[r]·(qx[r][i] − zx[r]), qx in [0, 255], so that the full 8 bits
// cover the row's range). The products are exact int32 sums, so
//
//	y[r][j] = sx[r]·sw[j]·(Σ_i qx[r][i]·qw[i][j] − zx[r]·Σ_i qw[i][j]) + b[j]
//
// and only the rounding of inputs and weights differs from float32. The
// attention products, the layer norms, the pooling and the final tanh layer
// stay float32. Vectors are within cosine 0.999 of the float32 path's on
// testdata/golden.json (TestGoldenVectorsInt8); other CPUs, and -tags
// purego, run the float32 path, which matches TF.js to 1e-6.

const quadK = 4 // VPDPBUSD sums 4 adjacent products into each int32 lane

// maxQuantIn bounds a quantized layer's inputs so that its int32 sums stay
// exact: 65,536 products of at most 255·127 in magnitude sum to less than
// 2³¹ (the zero point's term may wrap, but int32 arithmetic wraps it back).
const maxQuantIn = 1 << 16

// qweights is a dense layer's kernel quantized to int8 and packed for
// qgemm: panels of 16 output features, each [k4/4][16][4] bytes, so that one
// 64-byte vector holds 4 consecutive inputs of each of the 16 features.
type qweights struct {
	k4     int       // in rounded up to a multiple of 4 (zero-padded)
	w      []int8    // [out/16][k4/4][16][4]
	scale  []float32 // [out]: sw
	colSum []int32   // [out]: Σ_i qw[i][j]
}

// quantizeWeights quantizes an [in][out] row-major kernel (before pack).
func quantizeWeights(w []float32, in, out int) *qweights {
	k4 := roundUp(in, quadK)
	q := &qweights{k4: k4, w: make([]int8, k4*out), scale: make([]float32, out), colSum: make([]int32, out)}
	for i := 0; i < in; i++ {
		for j, v := range w[i*out : (i+1)*out] {
			q.scale[j] = max(q.scale[j], abs32(v))
		}
	}
	for j, m := range q.scale {
		q.scale[j] = m / 127
		if m == 0 {
			q.scale[j] = 1
		}
	}
	for i := 0; i < in; i++ {
		g := (i / quadK) * panelCols * quadK
		for j, v := range w[i*out : (i+1)*out] {
			qv := int8(max(-127, min(127, math.RoundToEven(float64(v/q.scale[j])))))
			q.w[(j/panelCols)*k4*panelCols+g+(j%panelCols)*quadK+i%quadK] = qv
			q.colSum[j] += int32(qv)
		}
	}
	return q
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// qinput is a layer's input rows quantized to uint8, with each row's scale
// and zero point.
type qinput struct {
	q     []uint8   // [rows][k4], the padding columns zero
	scale []float32 // [rows]
	zero  []int32   // [rows]
}

func newQinput(rows, maxK int) qinput {
	return qinput{q: make([]uint8, rows*roundUp(maxK, quadK)), scale: make([]float32, rows), zero: make([]int32, rows)}
}

// quantizeRows quantizes the rows of x ([rows][in]) into dst with row
// stride k4. With relu, negative inputs count as 0 (the layer reads
// ReLU(x)), which the quantization then does for free.
func quantizeRows(dst *qinput, x []float32, rows, in, k4 int, relu bool) {
	for r := 0; r < rows; r++ {
		xr := x[r*in : (r+1)*in]
		lo, hi := minMax(xr)
		lo, hi = min(lo, 0), max(hi, 0) // 0 is exact
		if relu {
			lo = 0
		}
		s := (hi - lo) / 255
		if !(s > 0) || math.IsInf(float64(s), 0) {
			s = 1 // an all-zero row (or one a NaN has reached)
		}
		inv := 1 / s
		z := float32(math.RoundToEven(float64(-lo * inv)))
		q := dst.q[r*k4 : (r+1)*k4]
		quant(xr, inv, z, q)
		clear(q[in:])
		dst.scale[r], dst.zero[r] = s, int32(z)
	}
}

// minMaxGo returns the least and the greatest of x (0, 0 if it is empty).
func minMaxGo(x []float32) (lo, hi float32) {
	if len(x) == 0 {
		return 0, 0
	}
	lo, hi = x[0], x[0]
	for _, v := range x[1:] {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// quantGo sets q[i] = clamp(roundToEven(x[i]·inv + z), 0, 255), the product
// rounded to float32 before the sum, as the assembly computes it.
func quantGo(x []float32, inv, z float32, q []uint8) {
	q = q[:len(x)]
	for i, v := range x {
		t := math.RoundToEven(float64(float32(v*inv) + z))
		switch {
		case t >= 255:
			q[i] = 255
		case t > 0:
			q[i] = uint8(t)
		default: // also NaN
			q[i] = 0
		}
	}
}

// forwardQ computes y = x·W + b for the rows of x (already quantized, in
// qx) on the int8 kernel, splitting the panels across par goroutines when
// par > 1.
func (l *linear) forwardQ(y []float32, qx *qinput, rows, par int) {
	if rows == 0 {
		return
	}
	panels := l.out / panelCols
	if par <= 1 || panels < 2 || rows*l.in*l.out < 1<<19 {
		qgemm(y, l.out, qx, rows, l.q, l.b, 0, panels)
		return
	}
	par = min(par, panels/2) // the kernel takes panels in pairs
	var wg sync.WaitGroup
	for p := 0; p < par; p++ {
		p0, p1 := panels*p/par&^1, panels*(p+1)/par&^1
		if p == par-1 {
			p1 = panels
		}
		wg.Go(func() {
			qgemm(y, l.out, qx, rows, l.q, l.b, p0, p1)
		})
	}
	wg.Wait()
}

// qgemm computes the output features of panels [p0, p1) for rows < rows:
// y[r*ldc+j] = sx[r]·sw[j]·(Σ qx·qw − zx[r]·colSum[j]) + b[j].
func qgemm(y []float32, ldc int, qx *qinput, rows int, w *qweights, bias []float32, p0, p1 int) {
	k4 := w.k4
	a, rs, rz := qx.q, qx.scale, qx.zero
	if rows < blockRows {
		// Too few rows for the kernel: run it on a zero-padded copy.
		var pa qinput
		pa = newQinput(blockRows, k4)
		copy(pa.q, a[:rows*k4])
		copy(pa.scale, rs[:rows])
		copy(pa.zero, rz[:rows])
		var cp [blockRows * 2 * panelCols]float32
		for p := p0; p < p1; p += 2 {
			n := min(2, p1-p)
			qkernel(n, k4, pa.q, pa.scale, pa.zero, w, p, bias, cp[:], 2*panelCols)
			for r := 0; r < rows; r++ {
				copy(y[r*ldc+p*panelCols:r*ldc+(p+n)*panelCols], cp[r*2*panelCols:r*2*panelCols+n*panelCols])
			}
		}
		return
	}
	for p := p0; p < p1; p += 2 {
		n := min(2, p1-p)
		for r0 := 0; r0 < rows; r0 += blockRows {
			// The last block is moved back to end at the last row; the rows
			// it shares with the previous block get the same values again.
			r0 = min(r0, rows-blockRows)
			qkernel(n, k4, a[r0*k4:], rs[r0:], rz[r0:], w, p, bias, y[r0*ldc+p*panelCols:], ldc)
		}
	}
}

// qkernel runs the 6-row kernel on n (1 or 2) panels starting at panel p.
// The VNNI kernel takes panels in pairs; a lone last panel (no layer of
// this model has one) runs on the portable kernel.
func qkernel(n, k4 int, a []uint8, rs []float32, rz []int32, w *qweights, p int, bias []float32, c []float32, ldc int) {
	b := w.w[p*k4*panelCols : (p+n)*k4*panelCols]
	j := p * panelCols
	cols := n * panelCols
	if n == 2 && haveVNNI {
		_ = a[5*k4+k4-1]
		_ = c[5*ldc+cols-1]
		_, _ = rs[5], rz[5]
		_, _, _ = w.scale[j+cols-1], w.colSum[j+cols-1], bias[j+cols-1]
		qgemm6x32(k4, &a[0], &b[0], &c[0], ldc, &rs[0], &rz[0], &w.scale[j], &w.colSum[j], &bias[j])
		return
	}
	for h := 0; h < n; h++ {
		o := h * panelCols
		qgemm6x16Go(k4, a, b[h*k4*panelCols:(h+1)*k4*panelCols], c[o:], ldc, rs, rz,
			w.scale[j+o:j+o+panelCols], w.colSum[j+o:j+o+panelCols], bias[j+o:j+o+panelCols])
	}
}

// qgemm6x16Go is the portable int8 kernel for one panel and 6 rows; the
// assembly computes the same integer sums and the same epilogue.
func qgemm6x16Go(k4 int, a []uint8, b []int8, c []float32, ldc int, rs []float32, rz []int32, cs []float32, colSum []int32, bias []float32) {
	for r := range blockRows {
		ar := a[r*k4 : (r+1)*k4]
		var acc [panelCols]int32
		for g := 0; g < k4/quadK; g++ {
			a0, a1, a2, a3 := int32(ar[4*g]), int32(ar[4*g+1]), int32(ar[4*g+2]), int32(ar[4*g+3])
			bg := b[g*panelCols*quadK : (g+1)*panelCols*quadK : (g+1)*panelCols*quadK]
			for j := range panelCols {
				acc[j] += a0*int32(bg[4*j]) + a1*int32(bg[4*j+1]) + a2*int32(bg[4*j+2]) + a3*int32(bg[4*j+3])
			}
		}
		for j := range panelCols {
			v := float32(acc[j] - rz[r]*colSum[j])
			c[r*ldc+j] = v*(cs[j]*rs[r]) + bias[j]
		}
	}
}

package uselite

import (
	"fmt"
	"sync"
)

// Dense layers are computed by a small register-blocked matrix kernel: it
// produces a 6×16 block of outputs (6 input rows × 16 output features) at a
// time from the 6 rows and a "panel" of the weights: the 16 features'
// columns of W, stored as in rows of 16 contiguous floats. Weights are packed
// into panels once, at load. The kernel is Go assembly with AVX2/FMA
// (gemm_amd64.s, when the CPU has them) or plain Go (gemm6x16Go), and the
// layer splits its panels across goroutines when asked to.

const (
	blockRows = 6  // rows of x per kernel call
	panelCols = 16 // output features per panel
)

// linear is a dense layer y = x·W + b.
type linear struct {
	in, out int
	panels  []float32 // [out/16][in][16]: W packed by 16 output features
	b       []float32 // [out]
	q       *qweights // W in int8 for the VNNI kernel (quant.go), or nil
}

// newLinear builds a layer from a TF.js kernel laid out [in][out] (row
// major, as MatMul and 1×1 Conv2D kernels are) and a bias [out]. The kernel
// is packed into panels by packAll.
func newLinear(kernel []float32, in, out int, bias []float32) *linear {
	if kernel == nil || bias == nil {
		return nil // the weightReader holds the error
	}
	return &linear{in: in, out: out, panels: kernel, b: bias}
}

// packAll packs the [in][out] kernels of layers into panels, in place and
// in parallel, except that those in quantize get int8 weights instead.
func packAll(layers []*linear, quantize map[*linear]bool) error {
	for _, l := range layers {
		if l.out%panelCols != 0 || l.in == 0 {
			return fmt.Errorf("uselite: dense layer %d -> %d: width not a multiple of %d", l.in, l.out, panelCols)
		}
		if quantize[l] && l.in > maxQuantIn {
			return fmt.Errorf("uselite: dense layer %d -> %d: more than %d inputs for the int8 kernel's int32 sums", l.in, l.out, maxQuantIn)
		}
	}
	var wg sync.WaitGroup
	for _, l := range layers {
		wg.Go(func() {
			if quantize[l] {
				// The int8 weights replace the float32 ones.
				l.q, l.panels = quantizeWeights(l.panels, l.in, l.out), nil
				return
			}
			pack(l.panels, l.in, l.out)
		})
	}
	wg.Wait()
	return nil
}

// pack rearranges the in×out matrix w into out/16 panels of in rows of 16.
func pack(w []float32, in, out int) {
	p := make([]float32, in*out)
	for c0 := 0; c0 < out; c0 += panelCols {
		panel := p[c0*in : (c0+panelCols)*in]
		for i := 0; i < in; i++ {
			copy(panel[i*panelCols:(i+1)*panelCols], w[i*out+c0:i*out+c0+panelCols])
		}
	}
	copy(w, p)
}

// forward computes y[r] = x[r]·W + b for the rows r < rows of x ([rows][in])
// into y ([rows][out]), splitting the panels across par goroutines when
// par > 1.
func (l *linear) forward(y, x []float32, rows, par int) {
	if rows == 0 {
		return
	}
	panels := l.out / panelCols
	if par <= 1 || panels < 2 || rows*l.in*l.out < 1<<18 {
		l.panelRange(y, x, rows, 0, panels)
		return
	}
	par = min(par, panels)
	var wg sync.WaitGroup
	for p := 0; p < par; p++ {
		p0, p1 := panels*p/par, panels*(p+1)/par
		wg.Go(func() {
			l.panelRange(y, x, rows, p0, p1)
		})
	}
	wg.Wait()
}

// dense computes y = x·W + b for the rows of x, on the int8 kernel if l has
// int8 weights (quantizing x into qx first), else on the float32 one. With
// relu the layer reads ReLU(x) (the float32 path applies it to x in place).
func (l *linear) dense(y, x []float32, rows, par int, qx *qinput, relu bool) {
	if l.q != nil {
		quantizeRows(qx, x, rows, l.in, l.q.k4, relu)
		l.forwardQ(y, qx, rows, par)
		return
	}
	if relu {
		for i, v := range x[:rows*l.in] {
			x[i] = max(v, 0)
		}
	}
	l.forward(y, x, rows, par)
}

// panelRange computes the output features of panels [p0, p1).
func (l *linear) panelRange(y, x []float32, rows, p0, p1 int) {
	gemm(y, l.out, x, l.in, rows, l.panels, l.in, p0, p1)
	for r := 0; r < rows; r++ {
		yr := y[r*l.out+p0*panelCols : r*l.out+p1*panelCols]
		bias := l.b[p0*panelCols : p1*panelCols]
		for j := range yr {
			yr[j] += bias[j]
		}
	}
}

// gemm computes c = a·B for the columns of B in panels [p0, p1): for
// r < rows and j in [16·p0, 16·p1),
//
//	c[r*ldc+j] = sum over i < k of a[r*lda+i] * B[i][j],
//
// where panels holds B packed by 16 columns ([panel][k][16]).
func gemm(c []float32, ldc int, a []float32, lda int, rows int, panels []float32, k int, p0, p1 int) {
	if rows <= 0 || k <= 0 {
		return
	}
	if rows < blockRows {
		gemmFewRows(c, ldc, a, lda, rows, panels, k, p0, p1)
		return
	}
	for p := p0; p < p1; {
		// Two panels at a time where the CPU has AVX-512, else one.
		n := 1
		if haveAVX512 && p+1 < p1 {
			n = 2
		}
		panel := panels[p*k*panelCols : (p+n)*k*panelCols]
		for r0 := 0; r0 < rows; r0 += blockRows {
			// The last block is moved back to end at the last row; the rows
			// it shares with the previous block get the same values again.
			r0 = min(r0, rows-blockRows)
			if n == 2 {
				kernel6x32(k, a[r0*lda:], lda, panel, c[r0*ldc+p*panelCols:], ldc)
			} else {
				kernel6x16(k, a[r0*lda:], lda, panel, c[r0*ldc+p*panelCols:], ldc)
			}
		}
		p += n
	}
}

// gemmFewRows is gemm for rows < 6, too few for the kernel: it runs the
// kernel on a zero-padded copy of the rows, or for one row (the final dense
// layer's pooled vector) on that row six times over (lda 0), and copies out
// the rows asked for. Each output is the same sum as in the kernel.
func gemmFewRows(c []float32, ldc int, a []float32, lda int, rows int, panels []float32, k int, p0, p1 int) {
	ap, apStride := a, 0
	if rows > 1 {
		ap, apStride = make([]float32, blockRows*k), k
		for r := 0; r < rows; r++ {
			copy(ap[r*k:(r+1)*k], a[r*lda:r*lda+k])
		}
	}
	const ldp = 2 * panelCols
	var cp [blockRows * ldp]float32
	for p := p0; p < p1; {
		n := 1
		if haveAVX512 && p+1 < p1 {
			n = 2
		}
		panel := panels[p*k*panelCols : (p+n)*k*panelCols]
		if n == 2 {
			kernel6x32(k, ap, apStride, panel, cp[:], ldp)
		} else {
			kernel6x16(k, ap, apStride, panel, cp[:], ldp)
		}
		for r := 0; r < rows; r++ {
			copy(c[r*ldc+p*panelCols:r*ldc+(p+n)*panelCols], cp[r*ldp:r*ldp+n*panelCols])
		}
		p += n
	}
}

// gemm6x16Go is the portable kernel: for r < 6 and j < 16,
// c[r*ldc+j] = sum over i < k of a[r*lda+i] * b[i*16+j].
func gemm6x16Go(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	var acc [blockRows][panelCols]float32
	b = b[:k*panelCols]
	for r := range blockRows {
		ar := a[r*lda : r*lda+k]
		row := &acc[r]
		for i, av := range ar {
			bi := b[i*panelCols : (i+1)*panelCols : (i+1)*panelCols]
			for j := range panelCols {
				row[j] += av * bi[j]
			}
		}
	}
	for r := range blockRows {
		copy(c[r*ldc:r*ldc+panelCols], acc[r][:])
	}
}

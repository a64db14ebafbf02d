package uselite

import (
	"sync"

	"github.com/viterin/vek/vek32"
)

// The matrix work is done with vek32.Dot (github.com/viterin/vek: Go
// assembly with AVX2/FMA where the CPU has it, plain Go otherwise). Weights
// are stored transposed, one row per output feature, so every output value
// is one dot product of two contiguous rows; outputs are computed in blocks
// of colTile features so that the block's weights stay in the L1/L2 cache
// while all input rows pass over them.

// colTile is the number of output features computed together.
const colTile = 16

// linear is a dense layer y = x·W + b.
type linear struct {
	in, out int
	wT      []float32 // [out][in]: W transposed
	b       []float32 // [out]
}

// newLinear builds a layer from a TF.js kernel laid out [in][out] (row
// major, as MatMul and 1×1 Conv2D kernels are) and a bias [out].
func newLinear(kernel []float32, in, out int, bias []float32) *linear {
	if kernel == nil || bias == nil {
		return nil // the weightReader holds the error
	}
	l := &linear{in: in, out: out, wT: make([]float32, in*out), b: bias}
	for i := 0; i < in; i++ {
		for o := 0; o < out; o++ {
			l.wT[o*in+i] = kernel[i*out+o]
		}
	}
	return l
}

// forward computes y[r] = x[r]·W + b for the rows r < rows of x ([rows][in])
// into y ([rows][out]), splitting the output features across par goroutines
// when par > 1.
func (l *linear) forward(y, x []float32, rows, par int) {
	tiles := (l.out + colTile - 1) / colTile
	if par <= 1 || tiles < 2 || rows*l.in*l.out < 1<<18 {
		l.tiles(y, x, rows, 0, tiles)
		return
	}
	if par > tiles {
		par = tiles
	}
	var wg sync.WaitGroup
	for p := 0; p < par; p++ {
		t0, t1 := tiles*p/par, tiles*(p+1)/par
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.tiles(y, x, rows, t0, t1)
		}()
	}
	wg.Wait()
}

// tiles computes the output features of tiles [t0, t1).
func (l *linear) tiles(y, x []float32, rows, t0, t1 int) {
	in, out := l.in, l.out
	for t := t0; t < t1; t++ {
		c0, c1 := t*colTile, min((t+1)*colTile, out)
		for r := 0; r < rows; r++ {
			xr := x[r*in : (r+1)*in]
			yr := y[r*out : (r+1)*out]
			for c := c0; c < c1; c++ {
				yr[c] = vek32.Dot(xr, l.wT[c*in:(c+1)*in]) + l.b[c]
			}
		}
	}
}

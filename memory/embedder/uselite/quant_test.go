package uselite

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQuantKernels checks the int8 kernel in use (VNNI assembly where the
// CPU has it) against the portable one, on random bytes and on the extremes
// (255 × -127 over the longest row), where an int16 or saturating
// accumulation would show.
func TestQuantKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const ldc = 41
	for _, k4 := range []int{4, 8, 256, 1536} {
		for _, extreme := range []bool{false, true} {
			a := make([]uint8, 6*k4)
			b := make([]int8, 2*16*k4)
			for i := range a {
				a[i] = uint8(rng.IntN(256))
				if extreme {
					a[i] = 255
				}
			}
			for i := range b {
				b[i] = int8(rng.IntN(255) - 127)
				if extreme {
					b[i] = -127
				}
			}
			w := &qweights{k4: k4, w: b, scale: make([]float32, 32), colSum: make([]int32, 32)}
			bias, rs, rz := make([]float32, 32), make([]float32, 6), make([]int32, 6)
			for j := range 32 {
				w.scale[j], bias[j] = rng.Float32()/100, rng.Float32()-0.5
				for g := 0; g < k4; g++ {
					p, jj := j/16, j%16
					w.colSum[j] += int32(b[p*16*k4+(g/4)*64+jj*4+g%4])
				}
			}
			for r := range 6 {
				rs[r], rz[r] = rng.Float32()/10, int32(rng.IntN(256))
			}
			want := make([]float32, 6*ldc)
			for h := 0; h < 2; h++ {
				qgemm6x16Go(k4, a, b[h*16*k4:(h+1)*16*k4], want[h*16:], ldc, rs, rz, w.scale[h*16:], w.colSum[h*16:], bias[h*16:])
			}
			got := make([]float32, 6*ldc)
			qkernel(2, k4, a, rs, rz, w, 0, bias, got, ldc)
			for i := range want {
				if d := math.Abs(float64(got[i] - want[i])); d > 1e-6*math.Max(1, math.Abs(float64(want[i]))) {
					t.Fatalf("k4 %d extreme %v: c[%d] = %v, portable kernel %v (VNNI %v)", k4, extreme, i, got[i], want[i], haveVNNI)
				}
			}
		}
	}
	t.Logf("VNNI kernel: %v", haveVNNI)
}

// TestQuantizeRows checks the row quantization (assembly where the CPU has
// AVX-512) against the portable loops, and that every value comes back to
// within half a step.
func TestQuantizeRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, in := range []int{16, 256, 1536, 7, 30} {
		for _, relu := range []bool{false, true} {
			const rows = 5
			x := make([]float32, rows*in)
			for i := range x {
				x[i] = float32(rng.NormFloat64()) * 3
			}
			for i := 0; i < in; i++ {
				x[2*in+i] = 0 // an all-zero row
				x[3*in+i] = float32(i)
			}
			k4 := roundUp(in, quadK) + 4 // stride with padding to clear
			got := newQinput(rows, k4)
			for i := range got.q {
				got.q[i] = 0xaa
			}
			quantizeRows(&got, x, rows, in, k4, relu)
			for r := 0; r < rows; r++ {
				xr := x[r*in : (r+1)*in]
				lo, hi := minMaxGo(xr)
				if glo, ghi := minMax(xr); glo != lo || ghi != hi {
					t.Fatalf("in %d row %d: minMax %v %v, want %v %v", in, r, glo, ghi, lo, hi)
				}
				s, z := got.scale[r], float32(got.zero[r])
				want := make([]uint8, in)
				quantGo(xr, 1/s, z, want)
				q := got.q[r*k4 : (r+1)*k4]
				if !slices.Equal(q[:in], want) {
					t.Fatalf("in %d relu %v row %d: quantized %v, portable %v", in, relu, r, q[:in], want)
				}
				if slices.ContainsFunc(q[in:], func(v uint8) bool { return v != 0 }) {
					t.Fatalf("in %d row %d: padding not cleared: %v", in, r, q[in:])
				}
				for i, v := range xr {
					if relu {
						v = max(v, 0)
					}
					back := s * (float32(q[i]) - z)
					if d := math.Abs(float64(back - v)); d > float64(s)*0.5001+1e-6 {
						t.Fatalf("in %d relu %v row %d: x[%d] = %v comes back as %v (step %v)", in, relu, r, i, v, back, s)
					}
				}
			}
		}
	}
}

// TestLinearInt8 checks an int8 dense layer against a float64 reference, to
// within what the rounding of inputs and weights allows, for row counts
// around the 6-row block and with 1 and 2 goroutines.
func TestLinearInt8(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dims := range [][2]int{{256, 512}, {512, 1536}, {1536, 512}, {7, 16}, {30, 48}} {
		in, out := dims[0], dims[1]
		w := make([]float32, in*out)
		b := make([]float32, out)
		for i := range w {
			w[i] = float32(rng.NormFloat64()) * 0.05
		}
		for i := range b {
			b[i] = rng.Float32() - 0.5
		}
		l := newLinear(slices.Clone(w), in, out, b)
		if err := packAll([]*linear{l}, map[*linear]bool{l: true}); err != nil {
			t.Fatal(err)
		}
		for _, rows := range []int{1, 5, 6, 7, 13, 128} {
			x := make([]float32, rows*in)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			qx := newQinput(rows, in)
			y := make([]float32, rows*out)
			l.dense(y, x, rows, 1, &qx, false)
			y2 := make([]float32, rows*out)
			l.dense(y2, x, rows, 2, &qx, false)
			if !slices.Equal(y, y2) {
				t.Fatalf("%dx%d rows %d: results with 1 and 2 goroutines differ", in, out, rows)
			}
			var errSum, refSum float64
			for r := 0; r < rows; r++ {
				for c := 0; c < out; c++ {
					want := float64(b[c])
					for i := 0; i < in; i++ {
						want += float64(x[r*in+i]) * float64(w[i*out+c])
					}
					d := float64(y[r*out+c]) - want
					errSum += d * d
					refSum += (want - float64(b[c])) * (want - float64(b[c]))
				}
			}
			// The relative error of the products, as a share of their
			// magnitude: about 1% for 8-bit inputs and weights.
			if rel := math.Sqrt(errSum / refSum); rel > 0.03 {
				t.Fatalf("%dx%d rows %d: relative error %.4f", in, out, rows, rel)
			}
		}
	}
}

// TestSoftmaxPadded checks the softmax in use (AVX-512 where the CPU has
// it) against the portable one, with the padding cleared.
func TestSoftmaxPadded(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 15, 16, 17, 100, 128} {
		padded := roundUp(n, 16)
		row := make([]float32, padded)
		for i := range row[:n] {
			row[i] = float32(rng.NormFloat64()) * 10
		}
		if n > 3 {
			row[1] = -200 // far below the maximum
		}
		want := slices.Clone(row[:n])
		softmax(want)
		softmaxPadded(row, n)
		for i := range row {
			w := float32(0)
			if i < n {
				w = want[i]
			}
			if d := math.Abs(float64(row[i] - w)); d > 1e-6 {
				t.Fatalf("n %d: p[%d] = %v, want %v", n, i, row[i], w)
			}
		}
	}
}

// TestLayerNormRow checks the layer norm in use (AVX-512 where the CPU has
// it) against the portable one.
func TestLayerNormRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, w := range []int{16, 256, 512, 20} {
		n := layerNorm{scale: make([]float32, w), bias: make([]float32, w)}
		x := make([]float32, w)
		for i := range x {
			x[i] = float32(rng.NormFloat64())*4 + 3
			n.scale[i], n.bias[i] = rng.Float32()*2, rng.Float32()-0.5
		}
		got, want := make([]float32, w), make([]float32, w)
		n.normalizeRow(got, x, 1e-6)
		n.normalizeRowGo(want, x, 1e-6)
		for i := range want {
			if d := math.Abs(float64(got[i] - want[i])); d > 1e-5 {
				t.Fatalf("width %d: y[%d] = %v, want %v", w, i, got[i], want[i])
			}
		}
	}
}

package uselite

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLinear checks the dense layer (assembly kernel where available) against
// a float64 reference, for row counts below, at and around the 6-row block.
func TestLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dims := range [][2]int{{256, 512}, {512, 1536}, {1536, 512}, {7, 16}} {
		in, out := dims[0], dims[1]
		w := make([]float32, in*out)
		b := make([]float32, out)
		for i := range w {
			w[i] = rng.Float32() - 0.5
		}
		for i := range b {
			b[i] = rng.Float32() - 0.5
		}
		l := newLinear(slices.Clone(w), in, out, b) // packed in place
		if err := packAll([]*linear{l}, nil); err != nil {
			t.Fatal(err)
		}
		for _, rows := range []int{1, 5, 6, 7, 12, 13, 128} {
			x := make([]float32, rows*in)
			for i := range x {
				x[i] = rng.Float32() - 0.5
			}
			y := make([]float32, rows*out)
			l.forward(y, x, rows, 1)
			y2 := make([]float32, rows*out)
			l.forward(y2, x, rows, 2)
			if !slices.Equal(y, y2) {
				t.Fatalf("%dx%d rows %d: results with 1 and 2 goroutines differ", in, out, rows)
			}
			// Every row; the first, a middle and the last column of each
			// 16-column panel (a float64 reference for all is slow under
			// -race).
			for r := 0; r < rows; r++ {
				for c := 0; c < out; c++ {
					if k := c % panelCols; k != 0 && k != 9 && k != panelCols-1 {
						continue
					}
					want := float64(b[c])
					for i := 0; i < in; i++ {
						want += float64(x[r*in+i]) * float64(w[i*out+c])
					}
					if d := math.Abs(float64(y[r*out+c]) - want); d > 1e-4 {
						t.Fatalf("%dx%d rows %d: y[%d][%d] = %v, want %v", in, out, rows, r, c, y[r*out+c], want)
					}
				}
			}
		}
	}
}

// TestKernels checks that the kernels in use (assembly where the CPU allows)
// agree with the portable one.
func TestKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const k, lda, ldc = 100, 103, 37
	a := make([]float32, 6*lda)
	b := make([]float32, 2*k*16)
	for i := range a {
		a[i] = rng.Float32() - 0.5
	}
	for i := range b {
		b[i] = rng.Float32() - 0.5
	}
	want := make([]float32, 6*ldc)
	gemm6x16Go(k, a, lda, b[:16*k], want, ldc)
	gemm6x16Go(k, a, lda, b[16*k:], want[16:], ldc)
	got16 := make([]float32, 6*ldc)
	kernel6x16(k, a, lda, b[:16*k], got16, ldc)
	kernel6x16(k, a, lda, b[16*k:], got16[16:], ldc)
	got32 := make([]float32, 6*ldc)
	kernel6x32(k, a, lda, b, got32, ldc)
	for i := range want {
		if math.Abs(float64(got16[i]-want[i])) > 1e-5 || math.Abs(float64(got32[i]-want[i])) > 1e-5 {
			t.Fatalf("c[%d]: 6x16 %v, 6x32 %v, Go %v (AVX2 %v, AVX-512 %v)", i, got16[i], got32[i], want[i], haveAsmKernel, haveAVX512)
		}
	}
	t.Logf("AVX2/FMA kernel: %v, AVX-512 kernel: %v", haveAsmKernel, haveAVX512)
}

// BenchmarkLinear measures the dense layer alone, on one goroutine, for the
// FFN's first matrix (512 -> 1536) and 128 rows.
func BenchmarkLinear(b *testing.B) {
	const rows, in, out = 128, 512, 1536
	l := newLinear(make([]float32, in*out), in, out, make([]float32, out))
	if err := packAll([]*linear{l}, nil); err != nil {
		b.Fatal(err)
	}
	x, y := make([]float32, rows*in), make([]float32, rows*out)
	cpu0 := cpuTime()
	for b.Loop() {
		l.forward(y, x, rows, 1)
	}
	flops := 2 * float64(rows*in*out) * float64(b.N)
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOPS")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(flops/cpu.Seconds()/1e9, "GFLOPS/cpu-s")
	}
}

func TestExpNonPositive(t *testing.T) {
	worst := 0.0
	for x := float32(0); x > -90; x -= 0.00137 {
		got, want := float64(expNonPositive(x)), math.Exp(float64(x))
		if want < 0x1p-126 {
			if got != 0 && math.Abs(got-want) > 0x1p-126 {
				t.Fatalf("exp(%v) = %v, want %v", x, got, want)
			}
			continue
		}
		rel := math.Abs(got-want) / want
		worst = max(worst, rel)
		if rel > 3e-7 {
			t.Fatalf("exp(%v) = %v, want %v (relative error %.2g)", x, got, want, rel)
		}
	}
	t.Logf("worst relative error %.3g", worst)
}

// BenchmarkLinearInt8 is BenchmarkLinear on the int8 path (quantizing the
// input rows included), where the CPU has AVX-512 VNNI.
func BenchmarkLinearInt8(b *testing.B) {
	if !haveVNNI {
		b.Skip("the CPU has no AVX-512 VNNI: the int8 path would run its portable test kernel")
	}
	const rows, in, out = 128, 512, 1536
	l := newLinear(make([]float32, in*out), in, out, make([]float32, out))
	if err := packAll([]*linear{l}, map[*linear]bool{l: true}); err != nil {
		b.Fatal(err)
	}
	x, y := make([]float32, rows*in), make([]float32, rows*out)
	qx := newQinput(rows, in)
	cpu0 := cpuTime()
	for b.Loop() {
		l.dense(y, x, rows, 1, &qx, false)
	}
	ops := 2 * float64(rows*in*out) * float64(b.N)
	b.ReportMetric(ops/b.Elapsed().Seconds()/1e9, "GOPS")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(ops/cpu.Seconds()/1e9, "GOPS/cpu-s")
	}
}

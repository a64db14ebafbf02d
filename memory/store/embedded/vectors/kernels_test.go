package vectors

import (
	"math"
	"math/rand/v2"
	"testing"
)

// withKernels runs f with each int8 kernel this CPU has, restoring the
// default after.
func withKernels(t *testing.T, f func(t *testing.T, k kernel)) {
	saved := i8Kernel
	defer func() { i8Kernel = saved }()
	for _, k := range availableI8() {
		i8Kernel = k
		t.Run(k.String(), func(t *testing.T) { f(t, k) })
	}
}

func TestDotKernelsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	saved := f32Kernel
	defer func() { f32Kernel = saved }()
	for _, n := range []int{0, 1, 7, 8, 31, 32, 33, 64, 100, 512, 768, 1000} {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		var mag float64
		for i := range a {
			a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
			want += float64(a[i]) * float64(b[i])
			mag += math.Abs(float64(a[i]) * float64(b[i]))
		}
		tol := float64(n+1) * 0x1p-23 * mag
		for _, k := range []kernel{kernelGo, kernelAVX2} {
			if k == kernelAVX2 && !haveF32AVX2 {
				continue
			}
			f32Kernel = k
			got := float64(Dot(a, b))
			if math.Abs(got-want) > tol {
				t.Errorf("n=%d kernel %v: Dot = %v, want %v ± %g", n, k, got, want, tol)
			}
		}
	}
	if !haveF32AVX2 {
		t.Log("no AVX2+FMA on this CPU: only the Go kernel was checked")
	}
}

func TestDotPanicsOnMismatch(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Dot of lengths 3 and 4 did not panic")
		}
	}()
	Dot(make([]float32, 3), make([]float32, 4))
}

// The int8 kernels compute exact integers, so every kernel must give the
// same result as plain integer arithmetic, including extreme codes.
func TestInt8KernelsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, stride := range []int{64, 128, 576} {
		nrows := 13
		data := make([]int8, nrows*stride)
		for i := range data {
			switch r.IntN(4) {
			case 0:
				data[i] = 127
			case 1:
				data[i] = -127
			default:
				data[i] = int8(r.IntN(255) - 127)
			}
		}
		q := make([]float32, stride)
		for i := range q {
			q[i] = float32(r.NormFloat64())
		}
		q[3] = 50 // one large coordinate: the others' codes are small
		qq := newQuantQuery(q, stride)
		rows := make([]int32, nrows)
		for i := range rows {
			rows[i] = int32(r.IntN(nrows))
		}
		for n := 0; n <= nrows; n++ {
			want := make([]int32, n)
			ptrs := make([]*int8, n)
			for j := range n {
				row := data[int(rows[j])*stride:][:stride]
				ptrs[j] = &row[0]
				for i, c := range row {
					want[j] += int32(qq.s8[i]) * int32(c)
				}
			}
			withKernels(t, func(t *testing.T, k kernel) {
				out := make([]int32, n)
				dotsI8(k, qq, stride, ptrs, out)
				if k == kernelVNNI {
					for j := range n {
						var s int32
						for _, c := range data[int(rows[j])*stride:][:stride] {
							s += int32(c)
						}
						out[j] -= s << 7
					}
				}
				for j := range n {
					if out[j] != want[j] {
						t.Fatalf("stride %d, %d rows: row %d = %d, want %d", stride, n, j, out[j], want[j])
					}
				}
			})
		}
	}
}

// The quantisation bound of quant.go must hold: the scaled integer dot
// product is within the stated interval of the float32 one.
func TestQuantBoundHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	const dims = 96
	stride := 128
	for trial := range 2000 {
		x, q := make([]float32, dims), make([]float32, dims)
		for i := range x {
			x[i] = float32(r.NormFloat64())
			q[i] = float32(r.NormFloat64())
			if trial%3 == 0 { // correlated pairs: large dot products
				q[i] = x[i] + 0.1*float32(r.NormFloat64())
			}
		}
		codes := make([]int8, stride)
		scale, resid, norm, _ := quantize(x, codes)
		qq := newQuantQuery(q, stride)
		var d int32
		for i := range codes {
			d += int32(codes[i]) * int32(qq.s8[i])
		}
		approx := float64(d) * qq.scale * float64(scale)
		bound := qq.norm*float64(resid) + qq.err*float64(norm) + qq.slack*float64(norm+resid)
		exact := float64(Dot(q, x))
		if math.Abs(approx-exact) > bound {
			t.Fatalf("trial %d: approx %v, exact %v, bound %v", trial, approx, exact, bound)
		}
	}
}

func (k kernel) String() string {
	return [...]string{"go", "avx2", "avx512vnni"}[k]
}

// availableI8 lists the int8 kernels this CPU can run.
func availableI8() []kernel {
	ks := []kernel{kernelGo}
	if haveI8AVX2 {
		ks = append(ks, kernelAVX2)
	}
	if haveI8VNNI {
		ks = append(ks, kernelVNNI)
	}
	return ks
}

package vectors

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkKernels: ns per 512-d row for the float32 dot product and the
// int8 kernels, over rows that fit in L2 (hot) and over 64 MB (memory-bound,
// as a 100k-window scan is).
func BenchmarkKernels(b *testing.B) {
	const dims = 512
	r := rand.New(rand.NewPCG(1, 2))
	for _, rows := range []int{256, 131072} {
		f32 := make([]float32, rows*dims)
		for i := range f32 {
			f32[i] = float32(r.NormFloat64())
		}
		q := f32[:dims:dims]
		f32Saved := f32Kernel
		for _, k := range []kernel{kernelGo, kernelAVX2} {
			if k == kernelAVX2 && !haveF32AVX2 {
				continue
			}
			b.Run(fmt.Sprintf("f32/%s/rows=%d", k, rows), func(b *testing.B) {
				f32Kernel = k
				defer func() { f32Kernel = f32Saved }()
				var s float32
				for i := range b.N {
					j := i % rows
					s += dotF32(q, f32[j*dims:(j+1)*dims])
				}
				_ = s
			})
		}
		codes := make([]int8, rows*dims)
		for i := range codes {
			codes[i] = int8(r.IntN(255) - 127)
		}
		qq := newQuantQuery(q, dims)
		ptrs := make([]*int8, scanBlock)
		out := make([]int32, scanBlock)
		for _, k := range availableI8() {
			b.Run(fmt.Sprintf("i8/%s/rows=%d", k, rows), func(b *testing.B) {
				for i := 0; i < b.N; i += scanBlock {
					base := (i % rows) &^ (scanBlock - 1)
					for j := range ptrs {
						ptrs[j] = &codes[(base+j)*dims]
					}
					dotsI8(k, qq, dims, ptrs, out)
				}
			})
		}
	}
}

func BenchmarkQuantize(b *testing.B) {
	x := newCorpus(512, 1, 1).unit()
	dst := make([]int8, 512)
	for range b.N {
		quantize(x, dst)
	}
}

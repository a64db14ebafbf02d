//go:build !purego

package uselite

import "golang.org/x/sys/cpu"

// gemm6x16 is the AVX2/FMA micro-kernel in gemm_amd64.s; see gemm6x16Go.
//
//go:noescape
func gemm6x16(k int, a *float32, lda int, b *float32, c *float32, ldc int)

var haveAsmKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA

func kernel6x16(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	if haveAsmKernel {
		// Bounds the assembly relies on.
		_ = a[5*lda+k-1]
		_ = b[16*k-1]
		_ = c[5*ldc+15]
		gemm6x16(k, &a[0], lda, &b[0], &c[0], ldc)
		return
	}
	gemm6x16Go(k, a, lda, b, c, ldc)
}

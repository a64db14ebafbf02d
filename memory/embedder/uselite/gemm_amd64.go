//go:build !purego

package uselite

import "golang.org/x/sys/cpu"

// gemm6x16 is the AVX2/FMA micro-kernel in gemm_amd64.s; see gemm6x16Go.
//
//go:noescape
func gemm6x16(k int, a *float32, lda int, b *float32, c *float32, ldc int)

// gemm6x32 is the AVX-512 micro-kernel in gemm_amd64.s: gemm6x16 for two
// adjacent panels at once.
//
//go:noescape
func gemm6x32(k int, a *float32, lda int, b *float32, c *float32, ldc int)

var (
	haveAsmKernel = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	haveAVX512    = cpu.X86.HasAVX512F
)

func kernel6x16(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	if haveAsmKernel && k > 0 {
		// Bounds the assembly relies on.
		_ = a[5*lda+k-1]
		_ = b[16*k-1]
		_ = c[5*ldc+15]
		gemm6x16(k, &a[0], lda, &b[0], &c[0], ldc)
		return
	}
	gemm6x16Go(k, a, lda, b, c, ldc)
}

// kernel6x32 computes two adjacent panels (b holds both, 32·k floats).
func kernel6x32(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	if haveAVX512 && k > 0 {
		_ = a[5*lda+k-1]
		_ = b[32*k-1]
		_ = c[5*ldc+31]
		gemm6x32(k, &a[0], lda, &b[0], &c[0], ldc)
		return
	}
	kernel6x16(k, a, lda, b[:16*k], c, ldc)
	kernel6x16(k, a, lda, b[16*k:], c[16:], ldc)
}

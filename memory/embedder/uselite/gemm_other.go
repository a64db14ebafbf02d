//go:build !amd64 || purego

package uselite

const haveAsmKernel, haveAVX512 = false, false

func kernel6x16(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	gemm6x16Go(k, a, lda, b, c, ldc)
}

// kernel6x32 computes two adjacent panels (b holds both, 32·k floats).
func kernel6x32(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	gemm6x16Go(k, a, lda, b[:16*k], c, ldc)
	gemm6x16Go(k, a, lda, b[16*k:], c[16:], ldc)
}

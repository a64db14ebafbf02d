//go:build !amd64 || purego

package uselite

const haveAsmKernel = false

func kernel6x16(k int, a []float32, lda int, b []float32, c []float32, ldc int) {
	gemm6x16Go(k, a, lda, b, c, ldc)
}

//go:build !amd64 || purego

package vectors

const haveF32AVX2, haveI8AVX2, haveI8VNNI = false, false, false

func dotF32Asm(a, b []float32) float32 { panic("vectors: no assembly kernel in this build") }

func dotsI8AVX2Asm(q []int8, rows []*int8, stride int, out []int32) {
	panic("vectors: no assembly kernel in this build")
}

func dotsI8VNNIAsm(qu []uint8, rows []*int8, stride int, out []int32) {
	panic("vectors: no assembly kernel in this build")
}

//go:build !purego

package vectors

import "golang.org/x/sys/cpu"

// The assembly kernels of kernels_amd64.s; see their comments for the
// contracts the Go wrappers in kernels.go uphold.

//go:noescape
func dotF32AVX2(a, b *float32, n int) float32

//go:noescape
func dotsI8AVX2(q *int8, rows **int8, stride int, n int, out *int32)

//go:noescape
func dotsI8VNNI(qu *uint8, rows **int8, stride int, n int, out *int32)

var (
	haveF32AVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	haveI8AVX2  = cpu.X86.HasAVX2
	haveI8VNNI  = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI
)

func dotF32Asm(a, b []float32) float32 { return dotF32AVX2(&a[0], &b[0], len(a)) }

func dotsI8AVX2Asm(q []int8, rows []*int8, stride int, out []int32) {
	dotsI8AVX2(&q[0], &rows[0], stride, len(rows), &out[0])
}

func dotsI8VNNIAsm(qu []uint8, rows []*int8, stride int, out []int32) {
	dotsI8VNNI(&qu[0], &rows[0], stride, len(rows), &out[0])
}

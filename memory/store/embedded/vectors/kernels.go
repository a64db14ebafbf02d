package vectors

import (
	"fmt"
	"unsafe"
)

// Dot returns the dot product of a and b, which must have the same length
// (it panics otherwise: a length mismatch is a programming error, and the
// callers in this module check dimensions first). It uses AVX2+FMA when the
// CPU has them (chosen at run time) and a pure-Go loop otherwise; the two
// agree to float32 rounding, not bit for bit (they add in different orders).
func Dot(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("vectors.Dot: lengths %d and %d differ", len(a), len(b)))
	}
	return dotF32(a, b)
}

// dotF32 is Dot without the length check; len(b) >= len(a).
func dotF32(a, b []float32) float32 {
	n := len(a)
	m := 0
	var s float32
	if f32Kernel == kernelAVX2 && n >= 32 {
		m = n &^ 31
		s = dotF32Asm(a[:m], b[:m])
	} else if n >= 8 {
		m = n &^ 7
		s = dotF32Go(a[:m], b[:m])
	}
	b = b[:n]
	for i := m; i < n; i++ {
		s += a[i] * b[i]
	}
	return s
}

// dotF32Go is the portable kernel: eight running sums (so the compiler keeps
// them in registers and the adds do not wait on each other); len(a) is a
// multiple of 8 and len(b) >= len(a).
func dotF32Go(a, b []float32) float32 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	b = b[:len(a)]
	for i := 0; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
		s4 += x[4] * y[4]
		s5 += x[5] * y[5]
		s6 += x[6] * y[6]
		s7 += x[7] * y[7]
	}
	return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))
}

// kernel names an implementation of the scan kernels.
type kernel int

const (
	kernelGo   kernel = iota // portable Go
	kernelAVX2               // AVX2 (+FMA for float32)
	kernelVNNI               // AVX-512 VNNI (int8 only)
)

// The kernels in use, chosen once from the CPU's features; tests switch
// them to compare implementations.
var f32Kernel, i8Kernel = bestKernels()

func bestKernels() (f32, i8 kernel) {
	if haveF32AVX2 {
		f32 = kernelAVX2
	}
	switch {
	case haveI8VNNI:
		i8 = kernelVNNI
	case haveI8AVX2:
		i8 = kernelAVX2
	}
	return f32, i8
}

// dotsI8 sets out[j] to the integer dot product of the query's codes with
// the stride bytes at rows[j], for j < len(rows), without the VNNI
// kernel's offset correction (rowInfo.sum, which the callers subtract).
// Every row pointer addresses stride bytes of codes (the callers slice them
// from the chunks, so the bounds are checked there); stride is a multiple
// of 64 and len(out) >= len(rows).
func dotsI8(k kernel, q *quantQuery, stride int, rows []*int8, out []int32) {
	n := len(rows)
	if n == 0 {
		return
	}
	_ = out[n-1]
	if k == kernelGo {
		dotsI8Go(q.s8, stride, rows, out)
		return
	}
	full := n &^ 3
	if full > 0 {
		dotsI8Asm(k, q, stride, rows[:full], out[:full])
	}
	if full < n {
		// the kernels take rows four at a time: pad the last group with
		// copies of its first row and keep only the real results
		var prow [4]*int8
		var pout [4]int32
		for j := range prow {
			prow[j] = rows[min(full+j, n-1)]
		}
		dotsI8Asm(k, q, stride, prow[:], pout[:])
		copy(out[full:n], pout[:n-full])
	}
}

func dotsI8Asm(k kernel, q *quantQuery, stride int, rows []*int8, out []int32) {
	if k == kernelVNNI {
		dotsI8VNNIAsm(q.u8[:stride], rows, stride, out)
	} else {
		dotsI8AVX2Asm(q.s8[:stride], rows, stride, out)
	}
}

// dotsI8Go is the portable int8 kernel.
func dotsI8Go(q []int8, stride int, rows []*int8, out []int32) {
	q = q[:stride]
	for j, p := range rows {
		row := unsafe.Slice(p, stride)
		var s0, s1, s2, s3 int32
		for i := 0; i+4 <= len(row); i += 4 {
			x, y := q[i:i+4:i+4], row[i:i+4:i+4]
			s0 += int32(x[0]) * int32(y[0])
			s1 += int32(x[1]) * int32(y[1])
			s2 += int32(x[2]) * int32(y[2])
			s3 += int32(x[3]) * int32(y[3])
		}
		out[j] = s0 + s1 + s2 + s3
	}
}

package vectors

import (
	"math"
	"unsafe"
)

// Quantisation: each vector x (a window or a query) is stored as int8
// codes c with one float32 scale s per vector, s = max|x_i| / 127 and
// c_i = round(x_i / s), so x̂ = s·c is within s/2 of x in every coordinate.
// Codes stay in [-127, 127] (never -128), which the AVX2 kernel relies on.
//
// With x̂ and q̂ the dequantised window and query, Cauchy–Schwarz bounds the
// error of the integer scan exactly:
//
//	|q·x − q̂·x̂| = |q·(x − x̂) + (q − q̂)·x̂| ≤ ‖q‖·‖x − x̂‖ + ‖q − q̂‖·‖x̂‖
//
// Every row keeps ‖x − x̂‖ (resid) and ‖x̂‖ (norm), every query ‖q‖ and
// ‖q − q̂‖, so the scan knows for each row an interval that surely holds the
// exact score; the search re-scores in float32 only the rows whose interval
// reaches the k-th best, and its results are those of the exact scan
// (not "almost always": always). See search.go.

// quantize writes x's codes to dst (len(dst) >= len(x); the rest of dst is
// zeroed) and returns the scale, ‖x − x̂‖ and ‖x̂‖ (both rounded up), and the
// sum of the codes.
func quantize(x []float32, dst []int8) (scale, resid, norm float32, sum int32) {
	var maxAbs float32
	for _, v := range x {
		// plain compares: the max builtin's NaN handling costs 4x here
		if v > maxAbs {
			maxAbs = v
		} else if -v > maxAbs {
			maxAbs = -v
		}
	}
	clear(dst[len(x):])
	if maxAbs == 0 || math.IsInf(float64(maxAbs), 0) {
		clear(dst[:len(x)])
		// a zero vector is exact; a non-finite one is rejected by Add
		return 0, 0, 0, 0
	}
	scale = maxAbs / 127
	sc := float64(scale)
	inv := 1 / sc
	var r2, n2 float64
	for i, v := range x {
		f := float64(v) * inv
		var c int32
		if f >= 0 {
			c = int32(f + 0.5)
		} else {
			c = int32(f - 0.5)
		}
		c = max(-127, min(127, c))
		dst[i] = int8(c)
		sum += c
		h := sc * float64(c)
		d := float64(v) - h
		r2 += d * d
		n2 += h * h
	}
	return scale, up(math.Sqrt(r2)), up(math.Sqrt(n2)), sum
}

// up rounds a non-negative float64 to a float32 no smaller than it, with a
// relative margin for the rounding of the sums that produced it.
func up(v float64) float32 {
	f := float32(v * (1 + 1e-6))
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// quantQuery is a query as the scan kernels take it.
type quantQuery struct {
	s8    []int8  // codes, zero-padded to the row stride
	u8    []uint8 // codes + 128 (the VNNI kernel's unsigned operand)
	scale float64
	norm  float64 // ‖q‖
	err   float64 // ‖q − q̂‖
	slack float64 // float32 rounding of the exact re-score, per unit of ‖x‖
}

func newQuantQuery(q []float32, stride int) *quantQuery {
	qq := &quantQuery{s8: make([]int8, stride), u8: make([]uint8, stride)}
	scale, resid, _, _ := quantize(q, qq.s8)
	offsetCodes(qq.u8, qq.s8)
	qq.scale = float64(scale)
	qq.err = float64(resid)
	var n2 float64
	for _, v := range q {
		n2 += float64(v) * float64(v)
	}
	qq.norm = float64(up(math.Sqrt(n2)))
	// A float32 dot product of n terms, however it is summed, is within
	// n·2⁻²⁴·Σ|q_i·x_i| ≤ n·2⁻²⁴·‖q‖·‖x‖ of the real one; twice that, for
	// margin.
	qq.slack = float64(len(q)+8) * 0x1p-23 * qq.norm
	return qq
}

// codesQuery views a stored row's codes as a query (graph construction
// compares stored rows with each other); norm and err are unused there.
func codesQuery(codes []int8, scale float32, dst *quantQuery) {
	dst.s8 = codes
	if cap(dst.u8) < len(codes) {
		dst.u8 = make([]uint8, len(codes))
	}
	dst.u8 = dst.u8[:len(codes)]
	if i8Kernel == kernelVNNI {
		offsetCodes(dst.u8, codes)
	}
	dst.scale = float64(scale)
}

// offsetCodes sets u[i] = c[i] + 128, that is c[i] with its top bit
// flipped, eight bytes at a time (len(c) is a multiple of 64).
func offsetCodes(u []uint8, c []int8) {
	n := len(c) / 8
	src := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(c))), n)
	dst := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(u))), n)
	for i, w := range src {
		dst[i] = w ^ 0x8080808080808080
	}
}

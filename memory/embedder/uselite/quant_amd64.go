//go:build !purego

package uselite

import "golang.org/x/sys/cpu"

// haveVNNI reports whether the int8 path (quant.go) runs here: the CPU has
// AVX-512 with VNNI (VPDPBUSD) and the OS keeps the 512-bit registers
// (golang.org/x/sys/cpu checks both).
var haveVNNI = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VNNI

// qgemm6x32 is the AVX-512 VNNI kernel in quant_amd64.s: qgemm6x16Go for two
// adjacent panels at once (b holds both, 32·k4 bytes), 6 rows of a (stride
// k4), writing 6 rows of 32 floats to c (stride ldc floats). rs, rz: the 6
// rows' scales and zero points; cs, colSum, bias: the 32 features'.
//
//go:noescape
func qgemm6x32(k4 int, a *uint8, b *int8, c *float32, ldc int, rs *float32, rz *int32, cs *float32, colSum *int32, bias *float32)

// minMax16 and quant16 (quant_amd64.s) are the two loops of quantizeRow for
// rows of a multiple of 16 values; see minMaxGo and quantGo.
//
//go:noescape
func minMax16(x *float32, n int) (lo, hi float32)

//go:noescape
func quant16(x *float32, n int, inv, z float32, q *uint8)

func minMax(x []float32) (lo, hi float32) {
	if haveVNNI && len(x) > 0 && len(x)%16 == 0 {
		return minMax16(&x[0], len(x))
	}
	return minMaxGo(x)
}

func quant(x []float32, inv, z float32, q []uint8) {
	if haveVNNI && len(x) > 0 && len(x)%16 == 0 {
		_ = q[len(x)-1]
		quant16(&x[0], len(x), inv, z, &q[0])
		return
	}
	quantGo(x, inv, z, q)
}

//go:build !amd64 || purego

package uselite

// haveVNNI is false: the int8 path has no fast kernel here, so the model
// runs float32 (see quant.go).
const haveVNNI = false

func qgemm6x32(k4 int, a *uint8, b *int8, c *float32, ldc int, rs *float32, rz *int32, cs *float32, colSum *int32, bias *float32) {
	panic("uselite: no int8 kernel on this platform")
}

func minMax(x []float32) (lo, hi float32) { return minMaxGo(x) }

func quant(x []float32, inv, z float32, q []uint8) { quantGo(x, inv, z, q) }

//go:build !purego

package uselite

// layerNorm16 is one row of normalize on AVX-512 (layernorm_amd64.s), for
// rows of a multiple of 16 values.
//
//go:noescape
func layerNorm16(y, x *float32, n int, scale, bias *float32, eps float32)

// normalizeRow applies the LayerNorm to the row x into y.
func (n layerNorm) normalizeRow(y, x []float32, eps float32) {
	w := len(n.scale)
	if haveAVX512 && w > 0 && w%16 == 0 {
		_, _, _ = y[w-1], x[w-1], n.bias[w-1]
		layerNorm16(&y[0], &x[0], w, &n.scale[0], &n.bias[0], eps)
		return
	}
	n.normalizeRowGo(y, x, eps)
}

//go:build !amd64 || purego

package uselite

// normalizeRow applies the LayerNorm to the row x into y.
func (n layerNorm) normalizeRow(y, x []float32, eps float32) { n.normalizeRowGo(y, x, eps) }

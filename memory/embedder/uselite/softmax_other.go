//go:build !amd64 || purego

package uselite

// softmaxPadded applies the softmax to row[:n] and sets row[n:] to 0.
func softmaxPadded(row []float32, n int) {
	softmax(row[:n])
	clear(row[n:])
}

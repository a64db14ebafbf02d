//go:build !purego

package uselite

import "math"

// softmax16 is softmaxGo on AVX-512 (softmax_amd64.s) for n a multiple of 16.
//
//go:noescape
func softmax16(s *float32, n int)

// softmaxPadded applies the softmax to row[:n] and sets row[n:] (the
// padding up to a multiple of 16) to 0.
func softmaxPadded(row []float32, n int) {
	if haveAVX512 && len(row)%16 == 0 && n > 0 {
		neg := float32(math.Inf(-1))
		for i := n; i < len(row); i++ {
			row[i] = neg
		}
		softmax16(&row[0], len(row))
		clear(row[n:])
		return
	}
	softmax(row[:n])
	clear(row[n:])
}

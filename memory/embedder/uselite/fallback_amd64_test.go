//go:build !purego

package uselite

import "testing"

// withoutCPUFeatures runs the rest of the test as on an amd64 CPU without
// AVX-512 (and so without VNNI) and, if avx2 is false, without AVX2/FMA:
// every kernel falls back to the next one down, as it does on such a CPU.
func withoutCPUFeatures(t *testing.T, avx2 bool) {
	vnni, avx512, asm := haveVNNI, haveAVX512, haveAsmKernel
	t.Cleanup(func() { haveVNNI, haveAVX512, haveAsmKernel = vnni, avx512, asm })
	haveVNNI, haveAVX512 = false, false
	haveAsmKernel = haveAsmKernel && avx2
}

// TestGoldenFallbacks checks the paths that CPUs without AVX-512 VNNI take,
// on this CPU: the float32 path with the AVX2 kernel (to 1e-5 per component
// on every golden case) and with plain Go, and the int8 path on its portable
// kernel (by cosine). The plain Go paths run the short cases only: they are
// slow, and the int8 one is there only to test the fast one.
func TestGoldenFallbacks(t *testing.T) {
	g := readGolden(t)
	var short, shortest []goldenCase
	for _, c := range g.Cases {
		if len(c.Tokens) <= 12 {
			short = append(short, c)
		}
		if len(c.Tokens) <= 8 {
			shortest = append(shortest, c)
		}
	}
	if len(short) < 10 || len(shortest) < 6 {
		t.Fatalf("only %d short golden cases", len(short))
	}
	f32, i8 := pathModel(t, false), pathModel(t, true)
	t.Run("float32-avx2", func(t *testing.T) {
		withoutCPUFeatures(t, true)
		if !haveAsmKernel {
			t.Skip("the CPU has no AVX2/FMA: covered by float32-go")
		}
		goldenExact(t, f32, g.Cases)
	})
	t.Run("float32-go", func(t *testing.T) {
		withoutCPUFeatures(t, false)
		goldenExact(t, f32, short)
	})
	t.Run("int8-go", func(t *testing.T) {
		withoutCPUFeatures(t, false)
		goldenCosine(t, i8, shortest)
	})
}

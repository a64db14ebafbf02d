//go:build uselite_float32 && !purego

package uselite

// Built with -tags uselite_float32, the model runs its float32 path on a
// CPU with VNNI too (its AVX-512 kernel, vectors within 1e-6 of the
// reference): the int8 path's baseline, measured side by side on one
// machine (EVALS.md, "The built-in embedder's speed").
func init() { haveVNNI = false }

package uselite

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// The model files, shipped inside the binary. See model/NOTICE.
//
//go:embed model/model.json model/vocab.json model/SHA256SUMS model/group1-shard*
var modelFiles embed.FS

// embeddedModel is the model directory inside the binary.
func embeddedModel() fs.FS {
	sub, err := fs.Sub(modelFiles, "model")
	if err != nil {
		panic(err) // "model" is a valid path
	}
	return sub
}

// readVerified reads name from fsys and checks it against model/SHA256SUMS.
func readVerified(fsys fs.FS, sums map[string]string, name string) ([]byte, error) {
	want, ok := sums[name]
	if !ok {
		return nil, fmt.Errorf("uselite: %s is not listed in SHA256SUMS", name)
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	got := sha256.Sum256(b)
	if hex.EncodeToString(got[:]) != want {
		return nil, fmt.Errorf("uselite: %s: SHA-256 %x does not match SHA256SUMS", name, got)
	}
	return b, nil
}

// readSums parses SHA256SUMS ("<hex>  <name>" lines, as sha256sum writes).
func readSums(fsys fs.FS) (map[string]string, error) {
	b, err := fs.ReadFile(fsys, "SHA256SUMS")
	if err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || len(f[0]) != 64 {
			return nil, fmt.Errorf("uselite: bad SHA256SUMS line %q", sc.Text())
		}
		sums[strings.TrimPrefix(f[1], "*")] = f[0]
	}
	return sums, sc.Err()
}

// tensor is one entry of model.json's weightsManifest, decoded.
type tensor struct {
	shape []int
	f32   []float32 // dtype float32
	i32   []int32   // dtype int32
}

// weights holds every tensor of the weight shards by its TF.js name.
type weights map[string]*tensor

// manifest is the part of a TF.js graph-model model.json that describes the
// weight shards: groups of files whose concatenated bytes hold the listed
// tensors back to back, in order.
type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name         string          `json:"name"`
			Shape        []int           `json:"shape"`
			Dtype        string          `json:"dtype"`
			Quantization json.RawMessage `json:"quantization"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// loadWeights reads model.json's weightsManifest and decodes every tensor
// from the (checksum-verified) shards. All tensors of this model are 4-byte
// values, so the shards are read straight into one []float32 and the float32
// tensors are slices of it.
func loadWeights(fsys fs.FS, sums map[string]string) (weights, error) {
	mj, err := readVerified(fsys, sums, "model.json")
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(mj, &m); err != nil {
		return nil, fmt.Errorf("uselite: model.json: %w", err)
	}
	if len(m.WeightsManifest) == 0 {
		return nil, fmt.Errorf("uselite: model.json has no weightsManifest")
	}
	w := weights{}
	for _, g := range m.WeightsManifest {
		words, err := readShards(fsys, sums, g.Paths)
		if err != nil {
			return nil, err
		}
		off := 0
		for _, spec := range g.Weights {
			if len(spec.Quantization) > 0 && string(spec.Quantization) != "null" {
				return nil, fmt.Errorf("uselite: %s: quantized weights are not supported", spec.Name)
			}
			n := 1
			for _, d := range spec.Shape {
				if d < 0 {
					return nil, fmt.Errorf("uselite: %s: bad shape %v", spec.Name, spec.Shape)
				}
				n *= d
			}
			if off+n > len(words) {
				return nil, fmt.Errorf("uselite: %s: shards too short", spec.Name)
			}
			t := &tensor{shape: spec.Shape}
			switch spec.Dtype {
			case "float32":
				t.f32 = words[off : off+n : off+n]
			case "int32":
				t.i32 = make([]int32, n)
				for i, v := range words[off : off+n] {
					t.i32[i] = int32(math.Float32bits(v))
				}
			default:
				return nil, fmt.Errorf("uselite: %s: unsupported dtype %q", spec.Name, spec.Dtype)
			}
			off += n
			w[spec.Name] = t
		}
		if off != len(words) {
			return nil, fmt.Errorf("uselite: %d unused values in weight shards", len(words)-off)
		}
	}
	return w, nil
}

// readShards reads a group of shards, checking each against SHA256SUMS,
// into one []float32 of the little-endian 4-byte values they hold.
func readShards(fsys fs.FS, sums map[string]string, paths []string) ([]float32, error) {
	total := 0
	for _, p := range paths {
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("uselite: %w", err)
		}
		total += int(fi.Size())
	}
	if total%4 != 0 {
		return nil, fmt.Errorf("uselite: weight shards hold %d bytes, not a whole number of 4-byte values", total)
	}
	words := make([]float32, total/4)
	if total == 0 {
		return words, nil
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), total)
	// Read and check the shards in parallel.
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	off := 0
	for i, p := range paths {
		fi, err := fs.Stat(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("uselite: %w", err)
		}
		dst := buf[off : off+int(fi.Size())]
		off += len(dst)
		wg.Go(func() {
			errs[i] = readShard(fsys, sums, p, dst)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 { // big-endian machine
		for i := 0; i < total; i += 4 {
			buf[i], buf[i+1], buf[i+2], buf[i+3] = buf[i+3], buf[i+2], buf[i+1], buf[i]
		}
	}
	return words, nil
}

// readShard reads p into dst, which has its size, and checks it
// against SHA256SUMS.
func readShard(fsys fs.FS, sums map[string]string, p string, dst []byte) error {
	want, ok := sums[p]
	if !ok {
		return fmt.Errorf("uselite: %s is not listed in SHA256SUMS", p)
	}
	f, err := fsys.Open(p)
	if err != nil {
		return fmt.Errorf("uselite: %w", err)
	}
	defer f.Close()
	if _, err := io.ReadFull(f, dst); err != nil {
		return fmt.Errorf("uselite: reading %s: %w", p, err)
	}
	if got := sha256.Sum256(dst); hex.EncodeToString(got[:]) != want {
		return fmt.Errorf("uselite: %s: SHA-256 %x does not match SHA256SUMS", p, got)
	}
	return nil
}

// get returns the named tensor after checking its dtype and shape.
func (w weights) get(name string, float bool, shape ...int) (*tensor, error) {
	t, ok := w[name]
	if !ok {
		return nil, fmt.Errorf("uselite: weight %s not found", name)
	}
	if float && t.f32 == nil || !float && t.i32 == nil {
		return nil, fmt.Errorf("uselite: weight %s has the wrong dtype", name)
	}
	if !slices.Equal(t.shape, shape) {
		return nil, fmt.Errorf("uselite: weight %s has shape %v, want %v", name, t.shape, shape)
	}
	return t, nil
}

// weightReader reads tensors by name and remembers the first error, so that
// the model can be assembled as a flat list of lookups.
type weightReader struct {
	w   weights
	err error
}

// f32 returns the float32 tensor name, which must have the given shape.
func (r *weightReader) f32(name string, shape ...int) []float32 {
	if r.err != nil {
		return nil
	}
	t, err := r.w.get(name, true, shape...)
	if err != nil {
		r.err = err
		return nil
	}
	return t.f32
}

// scalarF32 returns a float32 scalar constant.
func (r *weightReader) scalarF32(name string) float32 {
	v := r.f32(name)
	if v == nil {
		return 0
	}
	return v[0]
}

// i32 returns the int32 tensor name, which must have the given shape.
func (r *weightReader) i32(name string, shape ...int) []int32 {
	if r.err != nil {
		return nil
	}
	t, err := r.w.get(name, false, shape...)
	if err != nil {
		r.err = err
		return nil
	}
	return t.i32
}

// scalarI32 returns an int32 scalar constant.
func (r *weightReader) scalarI32(name string) int {
	v := r.i32(name)
	if v == nil {
		return 0
	}
	return int(v[0])
}

// dim returns the size of axis of the named tensor.
func (r *weightReader) dim(name string, axis int) int {
	if r.err != nil {
		return 0
	}
	t, ok := r.w[name]
	if !ok || axis >= len(t.shape) {
		r.err = fmt.Errorf("uselite: weight %s not found or has no axis %d", name, axis)
		return 0
	}
	return t.shape[axis]
}

package embedded

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"agentmem/memory"
)

// Records are JSON (readable with any bbolt browser, and small next to the
// vectors); vectors are little-endian float32 windows back to back.

func encode(m memory.Memory) ([]byte, error) {
	m.Vectors = nil
	return json.Marshal(m)
}

// errRecord marks a stored record that cannot be read back: the record
// file is damaged (guard names it).
var errRecord = errors.New("a stored memory cannot be decoded")

func decode(raw []byte) (memory.Memory, error) {
	var m memory.Memory
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%w: %w", errRecord, err)
	}
	return m, nil
}

func encodeVectors(vs [][]float32) []byte {
	n := 0
	for _, v := range vs {
		n += len(v)
	}
	b := make([]byte, 4*n)
	i := 0
	for _, v := range vs {
		for _, f := range v {
			binary.LittleEndian.PutUint32(b[i:], math.Float32bits(f))
			i += 4
		}
	}
	return b
}

func decodeVectors(b []byte, dims int) ([][]float32, error) {
	if dims <= 0 || len(b)%(4*dims) != 0 {
		return nil, fmt.Errorf("stored vector of %d bytes does not hold %d-dimensional windows", len(b), dims)
	}
	flat := make([]float32, len(b)/4)
	for i := range flat {
		flat[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	out := make([][]float32, 0, len(flat)/dims)
	for i := 0; i < len(flat); i += dims {
		out = append(out, flat[i:i+dims:i+dims])
	}
	return out, nil
}

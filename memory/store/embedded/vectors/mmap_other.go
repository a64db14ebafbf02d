//go:build !unix

package vectors

import (
	"fmt"
	"os"
)

// mapping holds a snapshot file read into memory, where mmap is not
// available.
type mapping struct {
	data []byte
}

func mapFile(path string) (*mapping, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < pageSize {
		return nil, fmt.Errorf("%s: %w: %d bytes", path, ErrCorrupt, len(data))
	}
	return &mapping{data: data}, nil
}

// release lets the collector have m's memory.
func (m *mapping) release() {
	if m != nil {
		m.data = nil
	}
}

// anonMapping is nil where mmap is not available: chunks stay on the heap.
func anonMapping(n int) *mapping { return nil }

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

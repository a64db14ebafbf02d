//go:build unix

package vectors

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// mapping is a snapshot file mapped copy-on-write: its pages are the page
// cache's until the index writes one (a reused row), which then becomes
// the process's own. It is unmapped when nothing refers to it any more.
type mapping struct {
	data []byte
}

func mapFile(path string) (*mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < pageSize {
		return nil, fmt.Errorf("%s: %w: %d bytes", path, ErrCorrupt, st.Size())
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	m := &mapping{data: data}
	runtime.AddCleanup(m, func(d []byte) { unix.Munmap(d) }, data)
	return m, nil
}

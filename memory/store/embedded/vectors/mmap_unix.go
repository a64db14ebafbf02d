//go:build unix

package vectors

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// mapping is a snapshot file mapped copy-on-write (its pages are the page
// cache's until the index writes one, a reused row, which then becomes the
// process's own), or memory off the Go heap (anonMapping). It is unmapped
// by release, or when nothing refers to it any more.
type mapping struct {
	data    []byte
	cleanup runtime.Cleanup
}

// release unmaps m now, when the index knows nothing refers to its memory
// any more, instead of at a later collection; releasing nil or twice does
// nothing.
func (m *mapping) release() {
	if m == nil || m.data == nil {
		return
	}
	m.cleanup.Stop()
	unix.Munmap(m.data)
	m.data = nil
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
	m.cleanup = runtime.AddCleanup(m, func(d []byte) { unix.Munmap(d) }, data)
	return m, nil
}

// anonMapping is n bytes of zeroed memory outside the Go heap (an
// anonymous private mapping), unmapped when nothing refers to it any more.
// The index keeps its full row chunks there: they are most of its memory,
// long-lived and free of pointers, and on the heap the collector's pacing
// lets the heap grow to about twice what is live (with GOGC 100), so a
// store ingesting millions of windows needed about twice their size in
// memory (EVALS.md, "Vectors off the heap"). nil when the system refuses
// the mapping: the caller then allocates on the heap.
func anonMapping(n int) *mapping {
	data, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	m := &mapping{data: data}
	m.cleanup = runtime.AddCleanup(m, func(d []byte) { unix.Munmap(d) }, data)
	return m
}

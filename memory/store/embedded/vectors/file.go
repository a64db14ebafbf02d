package vectors

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"unsafe"
)

// The snapshot file: an Index written whole, so that opening a store maps
// it instead of decoding every vector from the records and quantising and
// linking them again.
//
//	header    one 4096-byte page: magic, version, sizes, the caller's stamp
//	          and tag, the inverted file's size, and each section's offset,
//	          length and CRC-32C; the header's own CRC-32C last
//	sections  each on a page boundary, little-endian:
//	          0 float32 rows (nrows·dims·4)   mapped, copy-on-write
//	          1 int8 codes (nrows·stride)     mapped, copy-on-write
//	          2 rows (36 bytes each)          decoded
//	          3 memories                      decoded
//	          4 sessions                      decoded
//	          5 centroids (nlist·dims·4)      decoded (the lists are rebuilt)
//	          6 each row's list (nrows·4)     decoded
//	          7 each list's codes (live rows·stride: list by list, a list's
//	            rows in ascending order, as a load files them), mapped,
//	            copy-on-write; empty in files written before it (a load
//	            then copies them from section 1)
//
// Load verifies every checksum (at 1M windows of 512 dimensions that reads
// 2.7 GB once, from the page cache after the first open; the mapped
// sections with read(2), so checking them does not make them resident)
// and the ranges of every stored index, so a damaged or foreign file is an error, never a
// panic or a wrong answer. Save writes a temporary file, syncs it and
// renames it over the old one: a crash leaves the old snapshot or the new,
// never a torn one. The stamp is the caller's (the store's journal
// sequence): a snapshot older than the records is brought up to date by
// replaying what changed since, or rebuilt from the records when that is
// not possible.

const (
	fileMagic   = "AMVECS\x00\x01"
	fileVersion = 2
	pageSize    = 4096
	nSections   = 8
	rowRecord   = 36
	maxTag      = 1024
)

// ErrCorrupt is wrapped by Load's errors for a file that is not an intact
// snapshot of this format.
var ErrCorrupt = errors.New("vector snapshot is damaged or not a snapshot")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type section struct {
	off, n uint64
	crc    uint32
}

// header field offsets
const (
	hMagic    = 0
	hVersion  = 8
	hDims     = 12
	hStride   = 16
	hRows     = 20 // uint64
	hMems     = 28 // uint64
	hSess     = 36 // uint64
	hStamp    = 44 // uint64
	hApprox   = 52 // uint32: 1 when an inverted file follows
	hNlist    = 56
	hTrained  = 60
	hProbe    = 64 // uint32: the probe count calibrated on the rows' sample (0 in older files: calibrate)
	hTuned    = 68 // uint32: the probe count the searches' checks had set, at least hProbe (0 in older files, whose hProbe is it)
	hTagLen   = 72
	hTag      = 76                       // maxTag bytes
	hSections = hTag + maxTag            // nSections × 20 bytes
	hCRC      = hSections + nSections*20 // uint32
)

// Save writes the index to path (atomically, see above), recording stamp
// and tag (the caller's: e.g. the journal sequence and the embedder id),
// both returned by Load.
func (x *Index) Save(path string, stamp uint64, tag string) (err error) {
	if !littleEndian() {
		return errors.New("vectors: snapshots need a little-endian CPU")
	}
	if len(tag) > maxTag {
		return fmt.Errorf("vectors: snapshot tag is %d bytes; the limit is %d", len(tag), maxTag)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing vector snapshot: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := &secWriter{w: bufio.NewWriterSize(tmp, 1<<20), off: pageSize}
	if _, err := w.w.Write(make([]byte, pageSize)); err != nil {
		return err
	}
	secs := x.writeSections(w)
	if w.err != nil {
		return fmt.Errorf("writing vector snapshot: %w", w.err)
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("writing vector snapshot: %w", err)
	}
	if _, err := tmp.WriteAt(x.header(stamp, tag, secs), 0); err != nil {
		return fmt.Errorf("writing vector snapshot: %w", err)
	}
	return install(tmp, path)
}

// writeSections writes the sections after the header page, each on a page
// boundary, and returns where each lies and its CRC: those of the
// inverted file (5, 6, 7) only when x has one. A write's error is left in
// w.err.
func (x *Index) writeSections(w *secWriter) (secs [nSections]section) {
	nrows := len(x.rows)

	// 0, 1: vectors and codes, chunk by chunk
	w.begin()
	for ci, c := range x.chunks {
		n := min(chunkRows, nrows-ci*chunkRows)
		w.write(bytesOf(c.f32[:n*x.dims]))
	}
	secs[0] = w.end()
	w.begin()
	for ci, c := range x.chunks {
		n := min(chunkRows, nrows-ci*chunkRows)
		w.write(bytesOf(c.i8[:n*x.stride]))
	}
	secs[1] = w.end()

	secs[2] = x.writeRows(w)
	secs[3], secs[4] = x.writeMemories(w)

	// 5, 6: the inverted file's centroids and each row's list
	if v := x.ivf; v != nil {
		w.begin()
		w.write(bytesOf(v.cent))
		secs[5] = w.end()
		w.begin()
		w.write(bytesOf(v.of[:nrows]))
		secs[6] = w.end()
		w.begin()
		if saveListCodes {
			for _, list := range v.lists {
				for _, r := range slices.Sorted(slices.Values(list)) {
					w.write(bytesOf(x.rowI8(r)))
				}
			}
		}
		secs[7] = w.end()
	}
	return secs
}

// writeRows writes section 2: each row's record of rowRecord bytes.
func (x *Index) writeRows(w *secWriter) section {
	w.begin()
	var rec [rowRecord]byte
	for i := range x.rows {
		r := &x.rows[i]
		le := binary.LittleEndian
		le.PutUint64(rec[0:], uint64(r.date))
		le.PutUint32(rec[8:], uint32(r.mem))
		le.PutUint32(rec[12:], uint32(r.next))
		le.PutUint32(rec[16:], uint32(r.sess))
		le.PutUint32(rec[20:], math.Float32bits(r.scale))
		le.PutUint32(rec[24:], math.Float32bits(r.resid))
		le.PutUint32(rec[28:], math.Float32bits(r.norm))
		le.PutUint32(rec[32:], uint32(r.sum))
		w.write(rec[:])
	}
	return w.end()
}

// writeMemories writes section 3, the memories, and 4, the sessions.
func (x *Index) writeMemories(w *secWriter) (mems, sess section) {
	w.begin()
	for i := range x.mems {
		m := &x.mems[i]
		w.u32(uint32(m.first), uint32(m.nwin), uint32(m.sess), uint32(m.spos))
		w.u64(uint64(m.date))
		w.str(m.id)
	}
	mems = w.end()
	w.begin()
	for o, name := range x.sess.name {
		w.str(name)
		w.u32(uint32(x.sess.rows[o]))
	}
	return mems, w.end()
}

// header is the snapshot's header page, for the sections secs.
func (x *Index) header(stamp uint64, tag string, secs [nSections]section) []byte {
	nrows, v := len(x.rows), x.ivf
	h := make([]byte, pageSize)
	le := binary.LittleEndian
	copy(h[hMagic:], fileMagic)
	le.PutUint32(h[hVersion:], fileVersion)
	le.PutUint32(h[hDims:], uint32(x.dims))
	le.PutUint32(h[hStride:], uint32(x.stride))
	le.PutUint64(h[hRows:], uint64(nrows))
	le.PutUint64(h[hMems:], uint64(len(x.mems)))
	le.PutUint64(h[hSess:], uint64(len(x.sess.name)))
	le.PutUint64(h[hStamp:], stamp)
	if v != nil {
		le.PutUint32(h[hApprox:], 1)
		le.PutUint32(h[hNlist:], uint32(v.nlist))
		le.PutUint32(h[hTrained:], uint32(v.trained))
		floor, probe := v.probes()
		le.PutUint32(h[hProbe:], uint32(floor))
		le.PutUint32(h[hTuned:], uint32(probe))
	}
	le.PutUint32(h[hTagLen:], uint32(len(tag)))
	copy(h[hTag:], tag)
	for i, s := range secs {
		o := hSections + 20*i
		le.PutUint64(h[o:], s.off)
		le.PutUint64(h[o+8:], s.n)
		le.PutUint32(h[o+16:], s.crc)
	}
	le.PutUint32(h[hCRC:], crc32.Checksum(h[:hCRC], castagnoli))
	return h
}

// install syncs and closes tmp, the snapshot written whole, and renames it
// to path, syncing the directory where it can.
func install(tmp *os.File, path string) error {
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("syncing vector snapshot: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing vector snapshot: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("installing vector snapshot: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync() // the rename itself; best effort where directories cannot sync
		d.Close()
	}
	return nil
}

// secWriter writes sections on page boundaries, with their CRCs.
type secWriter struct {
	w     *bufio.Writer
	off   uint64
	start uint64
	crc   uint32
	err   error
	buf   [8]byte
}

func (w *secWriter) begin() {
	if pad := (pageSize - w.off%pageSize) % pageSize; pad > 0 {
		w.raw(make([]byte, pad))
	}
	w.start, w.crc = w.off, 0
}

func (w *secWriter) end() section {
	return section{off: w.start, n: w.off - w.start, crc: w.crc}
}

func (w *secWriter) raw(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
	w.off += uint64(len(b))
}

func (w *secWriter) write(b []byte) {
	w.crc = crc32.Update(w.crc, castagnoli, b)
	w.raw(b)
}

func (w *secWriter) u32(vs ...uint32) {
	for _, v := range vs {
		binary.LittleEndian.PutUint32(w.buf[:4], v)
		w.write(w.buf[:4])
	}
}

func (w *secWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(w.buf[:8], v)
	w.write(w.buf[:8])
}

func (w *secWriter) str(s string) {
	w.u32(uint32(len(s)))
	w.write([]byte(s))
}

func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

func sliceOf[T any](b []byte) []T {
	var z T
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// LoadInfo is what Save recorded besides the index.
type LoadInfo struct {
	Stamp uint64
	Tag   string
}

// Load opens a snapshot written by Save: the vectors and codes are mapped
// (copy-on-write; on systems without mmap, read), the rest decoded. opts
// applies as to New. A missing file is an error wrapping os.ErrNotExist, a damaged one
// wraps ErrCorrupt.
func Load(path string, opts Options) (*Index, LoadInfo, error) {
	var info LoadInfo
	if !littleEndian() {
		return nil, info, errors.New("vectors: snapshots need a little-endian CPU")
	}
	m, err := mapFile(path)
	if err != nil {
		return nil, info, err
	}
	f, err := os.Open(path)
	if err != nil {
		m.release()
		return nil, info, err
	}
	defer f.Close()
	x, info, err := decodeSnapshot(m, f, opts)
	if err != nil {
		m.release() // unmapped now, not at a later collection
		return nil, info, fmt.Errorf("%s: %w", path, err)
	}
	return x, info, nil
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// saveListCodes writes section 7; tests turn it off to write files as
// they were before it.
var saveListCodes = true

// mappedSections are used in place (the others are decoded).
var mappedSections = [nSections]bool{0: true, 1: true, 7: true}

// decodeSnapshot checks and decodes the mapped file; the sections used in
// place are checksummed by reading f, not through the mapping, so that
// checking does not make them part of the process's resident set (only
// the rows a search touches become so).
func decodeSnapshot(mp *mapping, f io.ReaderAt, opts Options) (_ *Index, info LoadInfo, err error) {
	var decoded *Index // released if the file turns out damaged
	defer func() {
		if err != nil && decoded != nil {
			decoded.Release()
		}
	}()
	b := mp.data
	hd, err := readHeader(b)
	if err != nil {
		return nil, info, err
	}
	le := binary.LittleEndian
	info.Stamp = le.Uint64(b[hStamp:])
	info.Tag = string(b[hTag : hTag+hd.tagLen])
	secs, err := readSections(b, f)
	if err != nil {
		return nil, info, err
	}
	n, dims, stride := int(hd.nrows), hd.dims, hd.stride
	if len(secs[0]) != n*dims*4 || len(secs[1]) != n*stride || len(secs[2]) != n*rowRecord {
		return nil, info, corrupt("row sections do not hold %d rows", n)
	}

	x, err := New(dims, opts)
	decoded = x
	if err != nil {
		return nil, info, corrupt("%v", err)
	}
	x.mapChunks(mp, secs[0], secs[1], n)
	x.decodeRows(secs[2], n)
	if err := x.decodeMemories(secs[3], secs[4], hd.nmems, hd.nsess); err != nil {
		return nil, info, err
	}
	if err := x.rebuildBookkeeping(); err != nil {
		return nil, info, err
	}

	if le.Uint32(b[hApprox:]) == 1 {
		if err := x.decodeIVF(secs[5], secs[6], secs[7], mp, int(le.Uint32(b[hNlist:])), int(le.Uint32(b[hTrained:])), int(le.Uint32(b[hProbe:])), int(le.Uint32(b[hTuned:]))); err != nil {
			return nil, info, err
		}
	}
	if x.ivf == nil && x.opts.ApproxAt > 0 && x.live >= x.opts.ApproxAt {
		x.buildIVF()
	}
	return x, info, nil
}

// snapHeader is the sizes a snapshot's header gives.
type snapHeader struct {
	dims, stride, tagLen int
	nrows, nmems, nsess  uint64
}

// readHeader checks the header page of the file b (its magic, checksum and
// version, and that its sizes are in range) and returns its sizes.
func readHeader(b []byte) (hd snapHeader, err error) {
	if len(b) < pageSize || string(b[:8]) != fileMagic {
		return hd, corrupt("no snapshot header")
	}
	le := binary.LittleEndian
	if crc32.Checksum(b[:hCRC], castagnoli) != le.Uint32(b[hCRC:]) {
		return hd, corrupt("header checksum")
	}
	if v := le.Uint32(b[hVersion:]); v != fileVersion {
		return hd, corrupt("version %d, this build reads %d", v, fileVersion)
	}
	dims, stride := int(le.Uint32(b[hDims:])), int(le.Uint32(b[hStride:]))
	nrows, nmems, nsess := le.Uint64(b[hRows:]), le.Uint64(b[hMems:]), le.Uint64(b[hSess:])
	tagLen := int(le.Uint32(b[hTagLen:]))
	if dims <= 0 || dims > MaxDims || stride != (dims+63)&^63 || nrows > math.MaxInt32 || nmems > math.MaxInt32 || nsess > math.MaxInt32 || tagLen > maxTag {
		return hd, corrupt("sizes out of range")
	}
	return snapHeader{dims: dims, stride: stride, tagLen: tagLen, nrows: nrows, nmems: nmems, nsess: nsess}, nil
}

// readSections is each section of the file b, as the header places it,
// checked against its checksum: the sections used in place
// (mappedSections) read from f.
func readSections(b []byte, f io.ReaderAt) (secs [nSections][]byte, err error) {
	le := binary.LittleEndian
	for i := range secs {
		o := hSections + 20*i
		off, n, crc := le.Uint64(b[o:]), le.Uint64(b[o+8:]), le.Uint32(b[o+16:])
		if off%pageSize != 0 || off > uint64(len(b)) || n > uint64(len(b))-off {
			return secs, corrupt("section %d out of the file", i)
		}
		secs[i] = b[off : off+n : off+n]
		var sum uint32
		if mappedSections[i] {
			var err error
			if sum, err = checksumAt(f, int64(off), int64(n)); err != nil {
				return secs, err
			}
		} else {
			sum = crc32.Checksum(secs[i], castagnoli)
		}
		if sum != crc {
			return secs, corrupt("section %d checksum", i)
		}
	}
	return secs, nil
}

// mapChunks makes x's n rows' chunks over the mapped sections 0 (f32) and
// 1 (i8), used in place.
func (x *Index) mapChunks(mp *mapping, f32s, i8s []byte, n int) {
	dims, stride := x.dims, x.stride
	f32, i8 := sliceOf[float32](f32s), sliceOf[int8](i8s)
	for ci := 0; ci*chunkRows < n; ci++ {
		lo, hi := ci*chunkRows, min(n, (ci+1)*chunkRows)
		x.chunks = append(x.chunks, &chunk{
			f32: f32[lo*dims : hi*dims : hi*dims],
			i8:  i8[lo*stride : hi*stride : hi*stride],
			m:   mp,
		})
	}
}

// decodeRows decodes section 2, rs: the records of x's n rows.
func (x *Index) decodeRows(rs []byte, n int) {
	le := binary.LittleEndian
	x.rows = make([]rowInfo, n)
	for i := range x.rows {
		rec := rs[i*rowRecord:]
		x.rows[i] = rowInfo{
			date:  int64(le.Uint64(rec[0:])),
			mem:   int32(le.Uint32(rec[8:])),
			next:  int32(le.Uint32(rec[12:])),
			sess:  int32(le.Uint32(rec[16:])),
			scale: math.Float32frombits(le.Uint32(rec[20:])),
			resid: math.Float32frombits(le.Uint32(rec[24:])),
			norm:  math.Float32frombits(le.Uint32(rec[28:])),
			sum:   int32(le.Uint32(rec[32:])),
		}
	}
}

// decodeMemories decodes section 3, mems (nmems memories), and 4, sess
// (nsess sessions).
func (x *Index) decodeMemories(mems, sess []byte, nmems, nsess uint64) error {
	rd := &secReader{b: mems}
	x.mems = make([]memInfo, nmems)
	for i := range x.mems {
		m := &x.mems[i]
		m.first, m.nwin, m.sess, m.spos = int32(rd.u32()), int32(rd.u32()), int32(rd.u32()), int32(rd.u32())
		m.date = int64(rd.u64())
		m.id = rd.str()
	}
	if rd.bad || len(rd.b) != 0 {
		return corrupt("memory section")
	}
	rd = &secReader{b: sess}
	x.sess.name = make([]string, nsess)
	x.sess.rows = make([]int32, nsess)
	x.sess.members = make([][]int32, nsess)
	for o := range x.sess.name {
		x.sess.name[o] = rd.str()
		x.sess.rows[o] = int32(rd.u32())
	}
	if rd.bad || len(rd.b) != 0 {
		return corrupt("session section")
	}
	return nil
}

// rebuildBookkeeping derives, and checks, everything Save does not store:
// the id map, free lists, session members, the live count.
func (x *Index) rebuildBookkeeping() error {
	if err := x.rebuildSessions(); err != nil {
		return err
	}
	counted, err := x.rebuildMemories()
	if err != nil {
		return err
	}
	if err := x.rebuildMembers(counted); err != nil {
		return err
	}
	return x.rebuildRows()
}

// rebuildSessions fills the sessions' ordinals by name and the free list
// of their slots.
func (x *Index) rebuildSessions() error {
	for o, name := range x.sess.name {
		if name == "" && x.sess.rows[o] == 0 {
			x.sess.free = append(x.sess.free, int32(o))
			continue
		}
		if _, dup := x.sess.ord[name]; dup {
			return corrupt("session %q twice", name)
		}
		x.sess.ord[name] = int32(o)
	}
	return nil
}

// rebuildMemories fills the memories' slots by id and the free list of
// their slots, checking each memory's session and chain of windows; it
// returns how many rows each session's memories count.
func (x *Index) rebuildMemories() ([]int32, error) {
	nrows, nsess := int32(len(x.rows)), int32(len(x.sess.name))
	counted := make([]int32, nsess)
	for slot := range x.mems {
		m := &x.mems[slot]
		if m.id == "" {
			x.freeMems = append(x.freeMems, int32(slot))
			continue
		}
		if _, dup := x.slots[m.id]; dup {
			return nil, corrupt("memory %q twice", m.id)
		}
		x.slots[m.id] = int32(slot)
		if m.sess < 0 || m.sess >= nsess || m.nwin <= 0 || m.nwin > nrows {
			return nil, corrupt("memory %q", m.id)
		}
		// walk its windows
		r, n := m.first, int32(0)
		for ; r >= 0 && n <= m.nwin; n++ {
			if r >= nrows || x.rows[r].mem != int32(slot) || x.rows[r].sess != m.sess {
				return nil, corrupt("windows of memory %q", m.id)
			}
			r = x.rows[r].next
		}
		if n != m.nwin {
			return nil, corrupt("windows of memory %q", m.id)
		}
		counted[m.sess] += m.nwin
	}
	return counted, nil
}

// rebuildMembers checks each session's row count against its memories'
// (counted) and fills the sessions' members and the memories' places
// among them.
func (x *Index) rebuildMembers(counted []int32) error {
	for o := range x.sess.name {
		if counted[o] != x.sess.rows[o] {
			return corrupt("session %d row count", o)
		}
		if counted[o] > 0 {
			x.sess.members[o] = make([]int32, 0, 4)
		}
	}
	for slot := range x.mems {
		if m := &x.mems[slot]; m.id != "" {
			x.sess.members[m.sess] = append(x.sess.members[m.sess], int32(slot))
		}
	}
	for _, list := range x.sess.members {
		for pos, slot := range list {
			x.mems[slot].spos = int32(pos)
		}
	}
	return nil
}

// rebuildRows zones the live rows, fills the free list of rows and the
// live count, checking that each row's memory is one.
func (x *Index) rebuildRows() error {
	nmems := int32(len(x.mems))
	for r := range x.rows {
		ri := &x.rows[r]
		if ri.mem >= 0 {
			x.zone(int32(r), ri.date)
		}
		switch {
		case ri.mem < 0:
			x.freeRows = append(x.freeRows, int32(r))
		case ri.mem >= nmems || x.mems[ri.mem].id == "":
			return corrupt("row %d", r)
		default:
			x.live++
		}
	}
	return nil
}

// decodeIVF rebuilds the inverted file from its centroids and each row's
// list; the lists' codes are used in place from the mapping when the file
// has them (section 7), else copied from the rows.
func (x *Index) decodeIVF(cent, of, codes []byte, mp *mapping, nlist, trained, probe, tuned int) error {
	n := len(x.rows)
	if nlist <= 0 || nlist > 1<<24 || len(cent) != nlist*x.dims*4 || len(of) != n*4 || (len(codes) != 0 && len(codes) != x.live*x.stride) {
		return corrupt("inverted file sizes")
	}
	c := make([]float32, nlist*x.dims)
	copy(c, sliceOf[float32](cent))
	v := &ivf{trained: trained}
	v.setCentroids(x, c)
	v.grow(n)
	sizes := make([]int, nlist)
	for _, l := range sliceOf[int32](of) {
		if l >= 0 && int(l) < nlist {
			sizes[l]++
		}
	}
	var mapped []int8
	if len(codes) > 0 {
		mapped, v.m = sliceOf[int8](codes), mp
	}
	v.initLists(nlist, x.stride, sizes, mapped)
	for r, l := range sliceOf[int32](of) {
		live := x.rows[r].mem >= 0
		if l < -1 || int(l) >= nlist || live != (l >= 0) {
			return corrupt("inverted list of row %d", r)
		}
		if live {
			v.file(x, int32(r), l, mapped == nil)
		}
	}
	x.ivf = v
	if probe > 0 && probe <= nlist && x.opts.NProbe == 0 {
		v.setFloor(probe) // calibrated on these rows when it was built
		if tuned > probe && tuned <= nlist {
			// where the checks of the searches before had set it: where
			// the searches start, but not a floor, so the checks of the
			// searches after this load may lower it again (see observe)
			v.setProbe(tuned)
		}
	} else {
		x.calibrate()
	}
	return nil
}

// checksumAt is the CRC-32C of n bytes of f at off.
func checksumAt(f io.ReaderAt, off, n int64) (uint32, error) {
	h := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(h, io.NewSectionReader(f, off, n), make([]byte, 1<<20)); err != nil {
		return 0, fmt.Errorf("reading vector snapshot: %w", err)
	}
	return h.Sum32(), nil
}

type secReader struct {
	b   []byte
	bad bool
}

func (r *secReader) take(n int) []byte {
	if n < 0 || len(r.b) < n {
		r.bad = true
		r.b = nil
		return make([]byte, max(n, 0))
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *secReader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *secReader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *secReader) str() string {
	n := int(r.u32())
	if n > len(r.b) {
		r.bad = true
		return ""
	}
	return string(r.take(n))
}

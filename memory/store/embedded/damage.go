package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"agentmem/memory"
	"agentmem/memory/internal/boltfile"
)

// A damaged record file must never crash the process nor pass for an empty
// store. bbolt trusts its file: on some damage it returns an error, on
// other damage it panics (an invalid freelist page, a failed assertion) or
// reads past the end of a truncated file, which faults. Every transaction
// of this package runs under guard, which turns a panic or a fault into
// ErrDamaged naming the file and what to do; after one, the store refuses
// every later call with the same error rather than write over damage.

// recordFile is the bbolt file of the records in the store's directory.
const recordFile = "memories.db"

// ErrDamaged is returned when the record file or the text index beside it
// is damaged in a way the store cannot repair itself.
var ErrDamaged = errors.New("the store is damaged")

// ErrNewerFormat is returned by Open when the record file was written by
// a later agentmem, whose records this one may not read.
var ErrNewerFormat = errors.New("the store was written by a newer agentmem")

// ErrDiskFull is returned when the file system refuses to grow the record
// file (no space left, a quota, a file size limit).
var ErrDiskFull = errors.New("the disk is full")

// advice is what a user can do about a damaged record file.
const advice = "stop agentmem and restore it from a backup; `agentmem check` reports what is damaged (the text index can be rebuilt from the records, the records cannot be rebuilt from anything)"

func damagedFile(path string, cause any) error {
	return fmt.Errorf("%w: the record file %s is damaged (%v): %s", ErrDamaged, path, cause, advice)
}

// openRecords opens the record file of dir, refusing a missing or empty
// one beside an index that holds documents, and turning every kind of
// damage bbolt meets at open into ErrDamaged.
func openRecords(dir string, noSync bool) (db *bolt.DB, err error) {
	path := filepath.Join(dir, recordFile)
	index := filepath.Join(dir, textDir)
	if hasSegments(filepath.Join(dir, legacyIndex)) {
		index = filepath.Join(dir, legacyIndex)
	}
	fi, serr := os.Stat(path)
	switch {
	case errors.Is(serr, fs.ErrNotExist) && anyHasSegments(dir):
		return nil, fmt.Errorf("%w: the record file %s is missing, but the text indexes in %s hold documents: restore the record file from a backup (agentmem stopped); to start an empty store instead, move %s away", ErrDamaged, path, index, index)
	case serr == nil && fi.Size() == 0 && anyHasSegments(dir):
		return nil, fmt.Errorf("%w: the record file %s is empty, but the text indexes in %s hold documents: restore the record file from a backup (agentmem stopped); to start an empty store instead, move %s away", ErrDamaged, path, index, index)
	case serr == nil && fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a directory, not a record file", ErrDamaged, path)
	}
	var file *os.File
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			if db != nil {
				closeQuietly(db)
			}
			boltfile.Release(file)
			db, err = nil, damagedFile(path, p)
		}
	}()
	// the freelist is read at open, not by the first write transaction,
	// which would panic on a damaged one holding bbolt's write lock
	db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoSync: noSync, PreLoadFreelist: true, OpenFile: boltfile.KeepFile(&file)})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("%w (data dir %s)", memory.ErrInUse, dir)
	case err != nil:
		// a system error (permissions, too many files) is not damage;
		// bbolt's own complaints about the content are (invalid, checksum,
		// version, "file size too small")
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("opening the record file: %w (the data dir must be writable, even to read: the store locks its files and keeps its indexes there)", err)
		}
		if errors.As(err, new(*fs.PathError)) {
			return nil, fmt.Errorf("opening the record file: %w", err)
		}
		return nil, damagedFile(path, err)
	}
	files.Store(db, file)
	// a truncated file: its pages reach past its end
	why, err := boltfile.Truncated(db, path)
	switch {
	case err != nil:
		closeQuietly(db)
		return nil, damagedFile(path, err)
	case why != "":
		closeQuietly(db)
		return nil, damagedFile(path, why)
	}
	return db, nil
}

// files are the record files openRecords opened, by DB: closeQuietly
// closes one itself when bolt's Close panics on damage before it does.
var files sync.Map // *bolt.DB -> *os.File

// closeQuietly closes db whatever its damage, releasing its lock.
func closeQuietly(db *bolt.DB) {
	defer func() {
		recover()
		forgetFile(db, true)
	}()
	db.Close()
}

// forgetFile drops db's file from files, closing it when asked.
func forgetFile(db *bolt.DB, close bool) {
	if f, ok := files.LoadAndDelete(db); ok && close {
		boltfile.Release(f.(*os.File))
	}
}

// guard runs fn, a use of the record file, turning a panic or a memory
// fault in it into ErrDamaged, after which the store refuses every call.
func (s *Store) guard(fn func() error) (err error) {
	if d := s.damage.Load(); d != nil {
		return *d
	}
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			if !fromRecords() && !s.inMapping(p) {
				panic(p) // a bug of ours, not damage: the tools' recovery reports it
			}
			err = damagedFile(filepath.Join(s.dir, recordFile), p)
			s.damage.CompareAndSwap(nil, &err)
			s.log.Error("the record file is damaged; refusing every further call", "error", err)
		}
	}()
	err = fn()
	switch {
	case (errors.Is(err, errRecord) || errors.Is(err, errRecordMissing)) && !errors.Is(err, ErrDamaged):
		err = damagedFile(filepath.Join(s.dir, recordFile), err)
	case err != nil && diskFull(err) && !errors.Is(err, ErrDiskFull):
		// bbolt rolled the transaction back: nothing of it was stored
		// (said once: Open's guard holds the guarded writes of its init)
		err = fmt.Errorf("%w: writing %s: %v; nothing of this write was stored: free some space (or raise the limit), then try again", ErrDiskFull, filepath.Join(s.dir, recordFile), err)
	}
	return err
}

// fromRecords reports, from a deferred recover, whether the panic was
// raised in bbolt or by a memory fault reading its mapped file: damage,
// which guard turns into ErrDamaged. Any other panic is a bug and is not
// to be reported as a damaged file.
func fromRecords() bool {
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && strings.HasPrefix(f.Function, "runtime."):
			if f.Function == "runtime.sigpanic" {
				// a fault: in bbolt's mapped file if the faulting frame is bbolt's
				f, _ = frames.Next()
				return strings.HasPrefix(f.Function, "go.etcd.io/bbolt")
			}
		case panicking:
			return strings.HasPrefix(f.Function, "go.etcd.io/bbolt")
		}
		if !more {
			return false
		}
	}
}

// reach is how far past its mapping a damaged page can point a read: an
// element's offset and length are 32-bit, counted from its page.
const reach = 1 << 33

// inMapping reports whether p is a memory fault at an address within reach
// of the record file's mapping: a read of the file, by bbolt or by our code
// over the keys and values it hands out (bytes.IndexByte over a key whose
// damaged length runs past the file's end), not a bug of ours (a nil
// dereference faults near address 0).
func (s *Store) inMapping(p any) bool {
	fault, ok := p.(interface{ Addr() uintptr })
	if !ok {
		return false
	}
	start := s.db.Info().Data
	return start != 0 && fault.Addr() >= start && fault.Addr()-start < reach
}

// view and update are bbolt's View and Update under guard.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return s.guard(func() error { return s.db.View(fn) })
}

func (s *Store) update(fn func(*bolt.Tx) error) error {
	return s.guard(func() error { return s.db.Update(fn) })
}

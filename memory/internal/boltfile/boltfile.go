// Package boltfile is what the memory's bbolt files (the embedded store's
// records, the embedding cache) share for opening a file that may be
// damaged: bbolt panics or faults on some damage (an invalid freelist
// page, a page that names itself wrongly, a truncated file) instead of
// returning an error, and a bolt.Open that panics never returns its DB,
// whose file stays open and locked.
package boltfile

import (
	"fmt"
	"os"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// Guard runs fn, passing a panic or a memory fault in it to caught.
func Guard(fn func(), caught func(any)) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			caught(p)
		}
	}()
	fn()
}

// KeepFile is a bolt.Options.OpenFile that keeps the file it opens in *f:
// when bolt.Open panics, Release can still let go of it.
func KeepFile(f **os.File) func(string, int, os.FileMode) (*os.File, error) {
	return func(name string, flag int, mode os.FileMode) (*os.File, error) {
		file, err := os.OpenFile(name, flag, mode)
		*f = file
		return file, err
	}
}

// Release unlocks and closes the file of a bolt.Open that panicked (or
// nil). Closing alone would not release the lock: the mapping bolt made of
// the file, which it never unmaps, keeps the locked file open.
func Release(f *os.File) {
	if f != nil {
		unlock(f)
		f.Close()
	}
}

// Truncated says how db's file at path is shorter than its pages (""
// when it is not): reading the pages past its end would fault. An error
// is a failure to tell.
func Truncated(db *bolt.DB, path string) (string, error) {
	var need int64
	if err := db.View(func(tx *bolt.Tx) error { need = tx.Size(); return nil }); err != nil {
		return "", err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() < need {
		return fmt.Sprintf("truncated: %d bytes, where its pages take %d", fi.Size(), need), nil
	}
	return "", nil
}

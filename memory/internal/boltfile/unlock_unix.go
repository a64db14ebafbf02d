//go:build unix

package boltfile

import (
	"os"
	"syscall"
)

func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

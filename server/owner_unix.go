//go:build unix

package server

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

func ownedByMe(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("owned by user %d, not by this user (%d)", st.Uid, os.Geteuid())
	}
	return nil
}

//go:build unix

package embedded

import (
	"errors"
	"strings"
	"syscall"
)

// diskFull reports whether err is the file system refusing to grow a file:
// no space, a quota, or a file size limit.
// bbolt formats some of these errors as text ("file resize error: …"), so
// the text is looked for too.
func diskFull(err error) bool {
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG} {
		if errors.Is(err, e) || strings.Contains(err.Error(), e.Error()) {
			return true
		}
	}
	return false
}

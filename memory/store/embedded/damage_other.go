//go:build !unix

package embedded

import (
	"errors"
	"io/fs"
	"strings"
)

// diskFull reports whether err is the file system refusing to grow a file
// (no space), as far as this platform tells.
func diskFull(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "space")
}

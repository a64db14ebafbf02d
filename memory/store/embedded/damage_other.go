//go:build !unix

package embedded

import "os"

func unlock(*os.File) {}

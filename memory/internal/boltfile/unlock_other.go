//go:build !unix

package boltfile

import "os"

func unlock(*os.File) {}

// Package socket says where the holder of a data directory serves other
// local processes (server.Attach, server.ListenSocket). It is a leaf, so
// that a client that only dials the socket (the hooks' lean binary) links
// nothing of the server.
package socket

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
)

const (
	name = "agentmem.sock"
	// MaxPath is the longest socket path used: a unix socket's path must
	// fit in sun_path, 108 bytes on Linux and 104 on macOS, with the
	// terminating NUL.
	MaxPath = 100
)

// Path is where the holder of the memory in dataDir serves other local
// processes: agentmem.sock in a directory private to the user, "run" in
// the data directory, or, when that path would be too long for a unix
// socket, "agentmem-UID-HASH" (HASH names the data directory) in
// $XDG_RUNTIME_DIR or else the temporary directory.
func Path(dataDir string) string {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	p := filepath.Join(abs, "run", name)
	if len(p) <= MaxPath {
		return p
	}
	sum := sha256.Sum256([]byte(abs))
	dir := fmt.Sprintf("agentmem-%d-%x", os.Getuid(), sum[:8])
	for _, base := range []string{os.Getenv("XDG_RUNTIME_DIR"), os.TempDir(), "/tmp"} {
		if base == "" {
			continue
		}
		p = filepath.Join(base, dir, name)
		if len(p) <= MaxPath {
			return p
		}
	}
	return p // still too long: ListenSocket says so
}

package peers

import (
	"os"
	"path/filepath"
	"testing"

	"agentmem/evals/peers/peertest"
)

// fakeEnv, when set in a test binary's environment, makes TestMain serve
// the fake peer (package peertest) over stdio instead of running tests.
const fakeEnv = "AGENTMEM_PEERS_FAKE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "server-memory" {
		os.Exit(peertest.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeInstallation is an Installation whose "node" is this test binary,
// which serves the fake peer when fakeEnv is set.
func fakeInstallation(t *testing.T) Installation {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, "server-memory")
	return Installation{Node: exe, Entry: "-test.run=^$", Dir: filepath.Dir(exe),
		Package: NewServerMemory().Package()}
}

package host

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// WatchSources stats every Go file of this module that the packages are
// built from, for a test that builds them with go build while it runs. go
// test caches a passing run by what the test binary is made of and the
// files and variables the test reads; a binary built at run time is
// neither, so without this a change to its code is answered by the last
// run's cached pass. Called from the test's process, it makes the cache
// key on those files.
func WatchSources(pkgs ...string) error {
	args := append([]string{"list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		return fmt.Errorf("go list %s: %v", strings.Join(pkgs, " "), err)
	}
	for _, dir := range strings.Fields(string(out)) {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return err
		}
		for _, f := range files {
			if _, err := os.Stat(f); err != nil {
				return err
			}
		}
	}
	return nil
}

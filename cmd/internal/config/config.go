// Package config holds the flags of every agentmem binary that need
// nothing heavy: where the data dir is, the default namespace, the clock
// and the time zone. backend.Config embeds Base and adds the store and the
// embedder; the hooks' lean binary (agentmem-hook) reads Base alone, so
// that it links no store, no model and no Couchbase client.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/alecthomas/kong"

	"agentmem/memory"
)

// GlobalGroup titles Base's flags, and the other flags every command
// takes, in a command's help: after the command's own.
var GlobalGroup = kong.Group{Key: "global", Title: "Global flags:"}

// Base is the light part of the configuration. The tags are the command
// line's flags; every flag also reads an AGENTMEM_* environment variable.
type Base struct {
	DataDir   string `name:"data-dir" group:"global" env:"AGENTMEM_DATA_DIR" help:"Where the embedded store and the embedding cache live (default: the user's data directory)." placeholder:"DIR"`
	Namespace string `name:"namespace" group:"global" env:"AGENTMEM_NAMESPACE" default:"default" help:"Namespace used when a call names none."`
	Now       string `name:"now" group:"global" env:"AGENTMEM_NOW" help:"Fix the clock to this date or date-time (replays, benchmarks)." placeholder:"DATE"`
	Timezone  string `name:"timezone" group:"global" env:"AGENTMEM_TIMEZONE" default:"Local" help:"Time zone of today, of dates sent without one, and of the days of times sent in UTC (IANA name, e.g. Europe/Paris, or UTC)."`
}

// Clock is the configured time zone and clock.
func (cfg Base) Clock() (*time.Location, func() time.Time, error) {
	loc := time.Local
	if cfg.Timezone != "" && cfg.Timezone != "Local" {
		l, err := time.LoadLocation(cfg.Timezone)
		if err != nil {
			return nil, nil, fmt.Errorf("timezone: %w", err)
		}
		loc = l
	}
	if cfg.Now == "" {
		return loc, time.Now, nil
	}
	t, _, err := memory.ParseDate(cfg.Now, loc)
	if err != nil {
		return nil, nil, fmt.Errorf("now: %w", err)
	}
	return loc, func() time.Time { return t }, nil
}

// Prepare creates the data dir (private to the user) and returns it.
func (cfg Base) Prepare() (string, error) {
	dir, err := cfg.Dir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("data-dir: %w", err)
	}
	return dir, nil
}

// Dir is cfg.DataDir, or agentmem's folder in the user's data directory:
// $XDG_DATA_HOME or ~/.local/share on Linux, Application Support on
// macOS, %LocalAppData% on Windows.
func (cfg Base) Dir() (string, error) {
	if cfg.DataDir != "" {
		return cfg.DataDir, nil
	}
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && runtime.GOOS != "windows" {
		return filepath.Join(x, "agentmem"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("data-dir: no home directory (%w); set --data-dir", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "agentmem"), nil
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "agentmem"), nil
		}
	}
	return filepath.Join(home, ".local", "share", "agentmem"), nil
}

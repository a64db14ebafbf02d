package backend

import (
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

type quietCLI struct{}

func (quietCLI) Quiet(command string) bool { return command != "serve" }

// A one-shot command logs warnings and errors only, unless a level was
// chosen; a server, and a binary that calls no command quiet, keep the
// level.
func TestQuietCommandsLogWarnings(t *testing.T) {
	for _, c := range []struct {
		cli     any
		command string
		level   slog.Level
		given   bool
		want    slog.Level
	}{
		{quietCLI{}, "recall", slog.LevelInfo, false, slog.LevelWarn},
		{quietCLI{}, "recall", slog.LevelInfo, true, slog.LevelInfo},
		{quietCLI{}, "recall", slog.LevelDebug, true, slog.LevelDebug},
		{quietCLI{}, "recall", slog.LevelError, false, slog.LevelError},
		{quietCLI{}, "serve", slog.LevelInfo, false, slog.LevelInfo},
		{struct{}{}, "recall", slog.LevelInfo, false, slog.LevelInfo},
	} {
		if got := logLevel(c.cli, c.command, c.level, c.given); got != c.want {
			t.Errorf("%T %s at %v (given %v): %v, want %v", c.cli, c.command, c.level, c.given, got, c.want)
		}
	}
}

func TestLogLevelGiven(t *testing.T) {
	t.Setenv("AGENTMEM_LOG_LEVEL", "")
	os.Unsetenv("AGENTMEM_LOG_LEVEL") // restored by Setenv's cleanup
	for args, want := range map[string]bool{
		"recall x":                   false,
		"--log-level info recall x":  true,
		"recall --log-level=debug x": true,
		"remember -- --log-level":    false,
	} {
		if got := logLevelGiven(strings.Fields(args)); got != want {
			t.Errorf("%q: %v, want %v", args, got, want)
		}
	}
	t.Setenv("AGENTMEM_LOG_LEVEL", "debug")
	if !logLevelGiven(nil) {
		t.Error("AGENTMEM_LOG_LEVEL set: not taken for a level given")
	}
}

// A command's help lists its own flags first, then the global ones and
// each optional backend's under their titles (they were 60 lines of
// global flags before the command's first).
func TestHelpListsTheCommandsFlagsFirst(t *testing.T) {
	var cli struct {
		Globals
		Cmd struct {
			Own bool `name:"own-flag" help:"The command's own."`
		} `cmd:""`
	}
	var out strings.Builder
	p, err := kong.New(&cli, kong.Name("x"), Vars(), Groups(), kong.Writers(&out, &out), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	p.Parse([]string{"cmd", "--help"})
	help := out.String()
	at := func(s string) int {
		t.Helper()
		i := strings.Index(help, s)
		if i < 0 {
			t.Fatalf("help lacks %q:\n%s", s, help)
		}
		return i
	}
	if !(at("--own-flag") < at("Global flags:") && at("Global flags:") < at("--data-dir") && at("--log-level") < at("OpenAI-compatible embeddings") &&
		at("Reranker (--reranker-url):") < at("--reranker-url") && at("Couchbase (--store couchbase):") < at("--couchbase-url")) {
		t.Errorf("help out of order:\n%s", help)
	}
}

package backend

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/alecthomas/kong"
)

// Globals are the flags of every command: the memory's, and the log level.
// kong (over the standard flag package) because it reads every flag from
// an AGENTMEM_* variable too, with help, enums and defaults declared once
// on the struct.
type Globals struct {
	Config
	LogLevel slog.Level `name:"log-level" group:"global" env:"AGENTMEM_LOG_LEVEL" default:"info" help:"debug, info, warn or error. Logs go to stderr. agentmem's commands that run once (recall, remember, import, …) log at warn unless it is given."`
}

func (g *Globals) globals() *Globals { return g }

// logLevel is the level of command's logger: level, or warnings at least
// for a command that cli calls quiet when no level was given.
func logLevel(cli any, command string, level slog.Level, given bool) slog.Level {
	if q, ok := cli.(interface{ Quiet(command string) bool }); ok && !given && q.Quiet(command) {
		return max(level, slog.LevelWarn)
	}
	return level
}

// logLevelGiven tells whether the log level was chosen, on the command
// line (args) or in the environment, rather than left at its default.
func logLevelGiven(args []string) bool {
	if _, ok := os.LookupEnv("AGENTMEM_LOG_LEVEL"); ok {
		return true
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--log-level" || strings.HasPrefix(a, "--log-level=") {
			return true
		}
	}
	return false
}

// Main is a binary's main: kong parses the command line into cli (a
// struct that embeds Globals and declares the commands) and runs the
// command chosen, whose Run gets what env makes of the context (cancelled
// by SIGINT or SIGTERM), the configuration and the logger. An error ends
// the process with status 1, printed after the binary's name. A cli whose
// Quiet(command) is true for the command chosen logs warnings and errors
// only, unless the log level was chosen: a one-shot command's informational
// lines (work resumed in the background, a migration done) are noise
// beside its own output.
func Main[E any](name, description string, cli interface{ globals() *Globals }, env func(context.Context, Config, *slog.Logger) E) {
	parser, err := kong.New(cli, kong.Name(name), kong.Description(description), kong.ShortUsageOnError(), Vars(), Groups())
	if err != nil {
		panic(err) // the cli struct is wrong: a programming error
	}
	// kong reads bytes that are not UTF-8 as U+FFFD without a word, and a
	// turn or query given so would be stored or searched as another text
	for _, a := range os.Args[1:] {
		if !utf8.ValidString(a) {
			fmt.Fprintf(os.Stderr, "%s: error: an argument is not valid UTF-8: %q; give text and paths as UTF-8\n", name, a[:min(len(a), 60)])
			os.Exit(1)
		}
	}
	for _, kv := range os.Environ() { // the flags' variables, read as they are
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AGENTMEM_") && !utf8.ValidString(v) {
			fmt.Fprintf(os.Stderr, "%s: error: %s is not valid UTF-8: %q; give text and paths as UTF-8\n", name, k, v[:min(len(v), 60)])
			os.Exit(1)
		}
	}
	k, err := parser.Parse(os.Args[1:])
	if a := dashedText(os.Args[1:]); err != nil && a != "" {
		// "- 11/16: reviewed the PR", a turn of a list, read as a flag
		err = fmt.Errorf("%w (%q is read as a flag: give a text that starts with '-' after '--', as in: … -- %q)", err, a, a)
	}
	if err != nil {
		// the usage that comes with a usage error goes to stderr, beside
		// it: stdout is the protocol's when a host runs `agentmem serve`
		parser.Stdout = os.Stderr
		parser.FatalIfErrorf(err)
	}
	g := cli.globals()
	command, _, _ := strings.Cut(k.Command(), " ")
	log := NewLogger(logLevel(cli, command, g.LogLevel, logLevelGiven(os.Args[1:])))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := k.Run(env(ctx, g.Config, log)); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// dashedText is the first argument before "--" that starts with '-' and
// holds a space: a text, not a flag.
func dashedText(args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && strings.ContainsAny(a, " \t\n") {
			return a
		}
	}
	return ""
}

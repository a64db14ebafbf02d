package backend

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
)

// Globals are the flags of every command: the memory's, and the log level.
// kong (over the standard flag package) because it reads every flag from
// an AGENTMEM_* variable too, with help, enums and defaults declared once
// on the struct.
type Globals struct {
	Config
	LogLevel slog.Level `name:"log-level" env:"AGENTMEM_LOG_LEVEL" default:"info" help:"debug, info, warn or error. Logs go to stderr."`
}

func (g *Globals) globals() *Globals { return g }

// Main is a binary's main: kong parses the command line into cli (a
// struct that embeds Globals and declares the commands) and runs the
// command chosen, whose Run gets what env makes of the context (cancelled
// by SIGINT or SIGTERM), the configuration and the logger. An error ends
// the process with status 1, printed after the binary's name.
func Main[E any](name, description string, cli interface{ globals() *Globals }, env func(context.Context, Config, *slog.Logger) E) {
	k := kong.Parse(cli, kong.Name(name), kong.Description(description), kong.ShortUsageOnError(), Vars())
	g := cli.globals()
	log := NewLogger(g.LogLevel)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := k.Run(env(ctx, g.Config, log)); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

package backend

import (
	stdlog "log"
	"log/slog"
	"os"

	"github.com/lmittmann/tint"
	"golang.org/x/term"
)

// NewLogger is the logger of every command: stderr only, since in stdio
// mode stdout belongs to the protocol. Colour only on a terminal, and never
// with NO_COLOR.
func NewLogger(level slog.Level) *slog.Logger {
	_, noColor := os.LookupEnv("NO_COLOR")
	noColor = noColor || !term.IsTerminal(int(os.Stderr.Fd()))
	h := tint.NewHandler(os.Stderr, &tint.Options{Level: level, NoColor: noColor, TimeFormat: "15:04:05.000"})
	routeStdlog(h)
	return slog.New(h)
}

// routeStdlog sends what the standard library's log writes through h, as
// warnings: bleve's index reports some faults it recovers from there
// ("unable to load snapshot, …, continuing"), which would otherwise reach
// stderr as raw lines in no format of ours and at no level.
func routeStdlog(h slog.Handler) {
	stdlog.SetFlags(0)
	stdlog.SetOutput(slog.NewLogLogger(h, slog.LevelWarn).Writer())
}

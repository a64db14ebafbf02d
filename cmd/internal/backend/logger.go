package backend

import (
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
	return slog.New(tint.NewHandler(os.Stderr, &tint.Options{Level: level, NoColor: noColor, TimeFormat: "15:04:05.000"}))
}

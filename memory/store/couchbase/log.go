package couchbase

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/couchbase/gocb/v2"
)

// slogger routes gocb's logs to log/slog. gocb logs a line per connection
// event at Info and chatters at Debug and below, so its levels shift down
// one step: only its warnings and errors reach an Info handler.
type slogger struct{ l *slog.Logger }

func (s slogger) Log(level gocb.LogLevel, _ int, format string, v ...any) error {
	lv := slogLevel(level)
	ctx := context.Background()
	if !s.l.Enabled(ctx, lv) {
		return nil
	}
	s.l.Log(ctx, lv, fmt.Sprintf(format, v...), "component", "gocb")
	return nil
}

func slogLevel(level gocb.LogLevel) slog.Level {
	switch level {
	case gocb.LogError:
		return slog.LevelError
	case gocb.LogWarn:
		return slog.LevelWarn
	case gocb.LogInfo:
		return slog.LevelDebug
	case gocb.LogDebug:
		return slog.LevelDebug - 2
	default:
		return slog.LevelDebug - 4
	}
}

// setLogger points gocb's process-wide logger at l, when there is one.
func setLogger(l *slog.Logger) {
	if l != nil {
		gocb.SetLogger(slogger{l})
	}
}

package couchbase

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/couchbase/gocb/v2"
)

func TestSlogger(t *testing.T) {
	tests := []struct {
		level gocb.LogLevel
		shown bool // at slog's Info level
		want  string
	}{
		{gocb.LogError, true, "level=ERROR"},
		{gocb.LogWarn, true, "level=WARN"},
		{gocb.LogInfo, false, ""},
		{gocb.LogDebug, false, ""},
		{gocb.LogTrace, false, ""},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		l := slogger{slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))}
		if err := l.Log(tc.level, 0, "node %s is %d", "n1", 3); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if !tc.shown {
			if out != "" {
				t.Errorf("level %v logged at Info: %s", tc.level, out)
			}
			continue
		}
		for _, w := range []string{tc.want, `msg="node n1 is 3"`, "component=gocb"} {
			if !strings.Contains(out, w) {
				t.Errorf("level %v: %q lacks %q", tc.level, out, w)
			}
		}
	}
	if slogLevel(gocb.LogTrace) >= slogLevel(gocb.LogDebug) {
		t.Error("trace is not below debug")
	}
}

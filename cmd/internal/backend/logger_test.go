package backend

import (
	"bytes"
	stdlog "log"
	"log/slog"
	"strings"
	"testing"
)

// bleve reports some faults it recovers from through the standard
// library's log: those lines must come out in the server's format, as
// warnings, not as raw lines.
func TestStdlogRoutedAsWarnings(t *testing.T) {
	out, flags := stdlog.Writer(), stdlog.Flags()
	t.Cleanup(func() { stdlog.SetOutput(out); stdlog.SetFlags(flags) })

	var buf bytes.Buffer
	routeStdlog(slog.NewTextHandler(&buf, nil))
	stdlog.Printf("unable to load snapshot, %v, continuing", "bad")

	got := strings.TrimSpace(buf.String())
	if !strings.Contains(got, "level=WARN") || !strings.Contains(got, `msg="unable to load snapshot, bad, continuing"`) {
		t.Fatalf("a standard log line came out as %q, want a warning record of it", got)
	}
	if strings.Count(got, "\n") != 0 {
		t.Fatalf("one standard log line came out as several records: %q", got)
	}
}

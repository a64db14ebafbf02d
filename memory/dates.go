package memory

import (
	"fmt"
	"strings"
	"time"

	dps "github.com/markusmobius/go-dateparser"
)

// isoLayouts are tried before the general parser: they are what most clients
// send, and time.Parse is a hundred times faster than natural-language parsing.
var isoLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
}

// ParseDate reads a session date: ISO 8601 dates and date-times, and the
// human forms benchmarks and chat exports use ("1:56 pm on 8 May, 2023",
// "2023/05/30 (Tue) 23:40", "7 May 2023", "yesterday"). A date without a zone
// is in loc; relative forms are resolved against now. go-dateparser does the
// natural-language part: it knows far more forms than a list of layouts would.
func ParseDate(s string, loc *time.Location, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty date")
	}
	for _, layout := range isoLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	cfg := &dps.Configuration{
		DefaultTimezone:     loc,
		CurrentTime:         now.In(loc),
		Languages:           []string{"en"},
		PreferredDateSource: dps.Past,
	}
	d, err := (&dps.Parser{}).Parse(cfg, s)
	if err != nil || d.Time.IsZero() {
		return time.Time{}, fmt.Errorf("cannot read %q as a date (use ISO 8601, e.g. 2023-05-07 or 2023-05-07T14:00:00Z)", s)
	}
	return d.Time, nil
}

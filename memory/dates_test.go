package memory

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	now := time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		loc  *time.Location
		want time.Time
	}{
		{"2023-05-07", time.UTC, time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)},
		{"2023-05-07T14:00:00Z", paris, time.Date(2023, 5, 7, 14, 0, 0, 0, time.UTC)},
		{"2023-05-07T14:00:00+02:00", time.UTC, time.Date(2023, 5, 7, 12, 0, 0, 0, time.UTC)},
		{"2023-05-07 14:00", paris, time.Date(2023, 5, 7, 14, 0, 0, 0, paris)},
		{"1:56 pm on 8 May, 2023", time.UTC, time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)},
		{"2023/05/30 (Tue) 23:40", time.UTC, time.Date(2023, 5, 30, 23, 40, 0, 0, time.UTC)},
		{"7 May 2023", time.UTC, time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)},
		{"yesterday", time.UTC, time.Date(2023, 5, 31, 12, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		got, err := ParseDate(c.in, c.loc, now)
		if err != nil {
			t.Errorf("ParseDate(%q): %v", c.in, err)
			continue
		}
		if c.in == "yesterday" {
			got = got.Truncate(time.Hour)
		}
		if !got.Equal(c.want) {
			t.Errorf("ParseDate(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "  ", "not a date", "2023-13-45"} {
		if _, err := ParseDate(bad, time.UTC, now); err == nil {
			t.Errorf("ParseDate(%q) succeeded, want an error", bad)
		}
	}
}

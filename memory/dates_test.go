package memory

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The documented forms are read, in the service's zone when they carry
// none; anything else is an error naming the field and what is wrong,
// never another date.
func TestParseDateStrict(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	for _, c := range []struct {
		in       string
		want     time.Time
		dateOnly bool
	}{
		{"2023-05-07", time.Date(2023, 5, 7, 0, 0, 0, 0, paris), true},
		{"2023-05-07T14:00:00Z", time.Date(2023, 5, 7, 14, 0, 0, 0, time.UTC), false},
		{"2023-05-07 14:00", time.Date(2023, 5, 7, 14, 0, 0, 0, paris), false},
		{"1:56 pm on 8 May, 2023", time.Date(2023, 5, 8, 13, 56, 0, 0, paris), false},
		{"2023/05/30 (Tue) 23:40", time.Date(2023, 5, 30, 23, 40, 0, 0, paris), false},
		{"7 May 2023", time.Date(2023, 5, 7, 0, 0, 0, 0, paris), true},
	} {
		got, dateOnly, err := ParseDate(c.in, paris)
		if err != nil || !got.Equal(c.want) || dateOnly != c.dateOnly {
			t.Errorf("ParseDate(%q) = %v %v %v, want %v %v", c.in, got, dateOnly, err, c.want, c.dateOnly)
		}
	}
	svc, err := New(Options{Store: nopStore{}, Location: paris})
	if err != nil {
		t.Fatal(err)
	}
	for in, why := range map[string]string{
		"31 February, 2023":      "February 2023 has 28 days",
		"2023-13-01":             "month",
		"2023":                   "day",
		"yesterday":              "give the date itself",
		strings.Repeat("9", 100): "64",
	} {
		_, _, err := svc.parseDate("session_date", in)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "session_date" || !strings.Contains(err.Error(), why) {
			t.Errorf("session_date %q: %v, want a field error saying %q", in, err, why)
		}
	}
}

// nopStore is a store that holds nothing.
type nopStore struct{ Store }

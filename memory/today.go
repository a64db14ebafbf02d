package memory

import (
	"fmt"
	"time"
)

// Today is the date a model should reason from.
type Today struct {
	Date     string `json:"date"`
	Weekday  string `json:"weekday"`
	Datetime string `json:"datetime"`
	Timezone string `json:"timezone"`
}

// TodayAt describes t: what the today tool says.
func TodayAt(t time.Time) Today {
	return Today{
		Date:     t.Format("2006-01-02"),
		Weekday:  t.Weekday().String(),
		Datetime: t.Format(time.RFC3339),
		Timezone: zoneName(t),
	}
}

// zoneName is the IANA name of t's zone, or its abbreviation ("UTC", "CET")
// when the zone is the process's unnamed Local.
func zoneName(t time.Time) string {
	if name := t.Location().String(); name != "Local" {
		return name
	}
	abbr, _ := t.Zone()
	return abbr
}

// Text is the sentence to give a model: "Today is Sunday, 7 May 2023
// (2023-05-07), 14:00 UTC".
func (d Today) Text() string {
	t, err := time.Parse(time.RFC3339, d.Datetime)
	if err != nil {
		return "Today is " + d.Date
	}
	return fmt.Sprintf("Today is %s, %s (%s), %s %s", d.Weekday, t.Format("2 January 2006"), d.Date, t.Format("15:04"), d.Timezone)
}

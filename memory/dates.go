package memory

import (
	"time"

	"agentmem/memory/dates"
)

// ParseDate reads a date argument (session_date, timestamp, after, before)
// strictly, in the forms package dates documents: ISO 8601 and RFC 3339,
// "1:56 pm on 8 May, 2023", "2023/05/30 (Tue) 23:40", "8 May 2023" and
// kin. A value without a zone is in loc; dateOnly reports a value without
// a time of day. Anything else is an error that names what is wrong, never
// another date.
func ParseDate(s string, loc *time.Location) (t time.Time, dateOnly bool, err error) {
	return dates.Parse(s, loc)
}

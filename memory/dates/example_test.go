package dates_test

import (
	"fmt"
	"time"

	"agentmem/memory/dates"
)

func ExampleParse() {
	for _, s := range []string{"1:56 pm on 8 May, 2023", "2023/05/30 (Tue) 23:40", "2023-05-07", "31 February, 2023"} {
		t, dateOnly, err := dates.Parse(s, time.UTC)
		if err != nil {
			fmt.Println("session_date:", err)
			continue
		}
		fmt.Println(t.Format(time.RFC3339), dateOnly)
	}
	// Output:
	// 2023-05-08T13:56:00Z false
	// 2023-05-30T23:40:00Z false
	// 2023-05-07T00:00:00Z true
	// session_date: cannot read "31 February, 2023" as a date: February 2023 has 28 days
}

func ExampleFind() {
	text := "We went hiking yesterday, and two weeks ago on 8 May 2023 we met in May."
	ref := time.Date(2023, 5, 24, 10, 0, 0, 0, time.UTC)
	for _, m := range dates.Find(text, ref) {
		fmt.Printf("%s [%s] %s relative=%v\n", text[m.Start:m.End], m.Label(), m.Grain, m.Relative)
	}
	// Output:
	// yesterday [2023-05-23] day relative=true
	// two weeks ago [2023-05-08..2023-05-14] week relative=true
	// 8 May 2023 [2023-05-08] day relative=false
	// May [2023-05] month relative=false
}

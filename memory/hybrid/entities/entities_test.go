package entities

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEntities(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		// Questions: the entity clause must carry the name.
		{"question nordstrom", "When did I go to the Nordstrom friends and family sale?", []string{"nordstrom"}},
		{"question caroline", "What did Caroline research?", []string{"caroline"}},
		{"question possessive", "What is Melanie's favourite painting?", []string{"melanie"}},
		{"question how many", "How many times has Caroline been to the Pride parade?", []string{"caroline", "pride"}},
		{"question date", "Did Melanie go camping at Yosemite in July 2022 or in the summer of 2021?",
			[]string{"melanie", "yosemite", "2022-07", "2021"}},
		{"question all lower", "where did i buy my running shoes", nil},

		// Names.
		{"speaker and greeting", "Caroline: Hey Mel! I went to a LGBTQ support group yesterday and it was so powerful.",
			[]string{"caroline", "mel", "lgbtq"}},
		{"multi-word", "I walked across the Golden Gate Bridge with Melanie last Tuesday.",
			[]string{"golden gate bridge", "melanie"}},
		{"connectors", "I've been reading Lord of the Rings at the Museum of Modern Art with Vincent van Gogh.",
			[]string{"lord of the rings", "museum of modern art", "vincent van gogh"}},
		{"ampersand", "Going to Barnes & Noble, then the Bank of America.", []string{"barnes & noble", "bank of america"}},
		{"and splits", "Caroline and Melanie are friends. Mel and I went to the beach.",
			[]string{"caroline", "melanie", "mel"}},
		{"sentence openers", "Yesterday was fun. Thanks! Painting helps. Visited Mohammed. That's it. Honestly.",
			[]string{"mohammed"}},
		{"sentence-initial name", "Melanie's kids loved the pottery class. Caroline went to Sweden with Jon. Beijing next.",
			[]string{"melanie", "caroline", "sweden", "jon", "beijing"}},
		{"article dropped", "The Alchemist is a book by Paulo Coelho.", []string{"alchemist", "paulo coelho"}},
		{"camel case and model numbers", "Yesterday I bought an iPhone 15 and a new MacBook Pro.",
			[]string{"iphone 15", "macbook pro"}},
		{"unicode names", "My trip to São Paulo, Zürich and Łódź with Zoë.", []string{"são paulo", "zürich", "łódź", "zoë"}},
		{"hyphenated", "She met Jean-Luc at Coca-Cola.", []string{"jean-luc", "coca-cola"}},
		{"acronyms", "Watching the Super Bowl with the NFL crowd; NASA JPL called.", []string{"super bowl", "nfl", "nasa jpl"}},
		{"shouting", "OMG THAT WAS THE BEST CONCERT EVER, Taylor Swift was amazing!!", []string{"taylor swift"}},
		{"titles of address", "I saw Dr. Smith and Mrs Jones.", []string{"smith", "jones"}},
		{"lone weekday and month", "See you on Monday, or in March at the latest.", nil},
		{"month name as name", "Jan Kowalski came over.", []string{"jan kowalski"}},
		{"curly apostrophe", "Caroline’s mom and Caroline's dad.", []string{"caroline"}},
		{"bullets and lines", "- Caroline\n- Melanie\nPainting class\nSweden", []string{"caroline", "melanie", "sweden"}},

		// Quoted titles.
		{"quoted titles", `My favourite book was "Charlotte's Web", and I just finished 'The Alchemist'.`,
			[]string{"charlotte's web", "the alchemist", "alchemist"}},
		{"smart quotes", "She recommended “Becoming” by Michelle Obama — it’s on my list.",
			[]string{"becoming", "michelle obama"}},
		{"single smart quotes", "We watched ‘Inside Out’ twice.", []string{"inside out"}},
		{"guillemets", "Elle a lu «Le Petit Prince».", []string{"elle", "le petit prince"}},
		{"question title", `Have you read "Who Moved My Cheese?" yet?`, []string{"who moved my cheese", "moved my cheese"}},
		{"cued lower-case title", `I watched a film called "the silent patient".`, []string{"the silent patient"}},
		{"speech is not a title", `"I love it," she said. "Honestly it was the best day."`, nil},
		{"scare quotes", `He said it was "no big deal".`, nil},
		{"apostrophes are not quotes", "The kids' toys and rock 'n' roll, don't worry.", nil},
		{"unclosed quote", `She said "Caroline is here and`, []string{"caroline"}},
		{"cjk brackets", "我们在北京见面了，看了「千と千尋の神隠し」。", []string{"千と千尋の神隠し"}},

		// Quantities.
		{"units", "I ran 5 km this morning and it took me 3 weeks to get back in shape.", []string{"5 km", "3 weeks"}},
		{"money and percent", "The coat was $1,200 but I got 20% off, so it was about 960 dollars.",
			[]string{"$1,200", "20%", "960 dollars"}},
		{"magnitudes", "It costs €50 or 1.5 million yen, 40 percent less than the $2 billion plan.",
			[]string{"€50", "1.5 million yen", "40%", "$2 billion"}},
		{"attached units", "A 10km run, a 5-day trip, a 3-year-old, 10k steps and 2GB.",
			[]string{"10 km", "5-day", "3-year-old", "10k", "2 gb"}},
		{"number words", "I have two kids and three dogs and one of them is mine.", []string{"2 kids", "3 dogs"}},
		{"ordinal", "My 30th birthday party was great.", []string{"30th birthday"}},
		{"counted plural", "We bought 4 tickets for 3 boys and 2 of them.", []string{"4 tickets", "3 boys"}},
		{"bare numbers and times", "I scored 1500, then at 10:30 am and 5 pm called 911.", nil},

		// Dates.
		{"locomo stamp", "[1:56 pm on 8 May, 2023] Melanie: Painting helps me relax.", []string{"2023-05-08", "melanie"}},
		{"month day year", "Tuesday, May 8, 2023 — meeting with Gina.", []string{"2023-05-08", "gina"}},
		{"ordinal month", "Barnes & Noble on May 8th, 2023 and the 8th of June.", []string{"barnes & noble", "2023-05-08", "june 8"}},
		{"iso and month year", "We moved to Seattle on 2023-05-07 and started at Amazon in May 2023.",
			[]string{"seattle", "2023-05-07", "amazon", "2023-05"}},
		{"abbreviated month", "Sept. 2023 was busy; 3 Jan 2024 too.", []string{"2023-09", "2024-01-03"}},
		{"numeric dates", "It was due 12/05/2019, from 2023-5-7, paid 2024-02.", []string{"12/05/2019", "2023-05-07", "2024-02"}},
		{"invalid dates", "On 31 February 2023 and 2023-13-01.", nil},
		{"years out of range", "King John signed it on June 15, 1215.", []string{"king john"}},
		{"year not quantity", "In 2019 we were 2000 people.", []string{"2019", "2000 people"}},
		{"year before a noun", "The 2008 financial crisis, 2000 people, in 1893.", []string{"2008", "2000 people", "1893"}},
		{"season and year", "Spring 2023 shows, winter 2022 semester, the summer of 2021.",
			[]string{"2023 shows", "2022 semester", "2021"}},
		{"lower-case months", "It dates back to august 2021, and the 6th of february 2023.", []string{"2021-08", "2023-02-06"}},
		{"mid-month", "Which classes did Evan join in mid-August 2023?", []string{"evan", "2023-08"}},
		{"comma before the year", "Where was the picture shared by John on December 1,2023 taken?", []string{"john", "2023-12-01"}},
		{"weekday in a name", "I got it on Cyber Monday, December 1st.", []string{"cyber monday", "december 1"}},
		{"day before a noun", "The September 11 attacks.", []string{"september 11"}},
		{"list item after a month", "Bloom in early May.\n4. Roses are red.", []string{"bloom", "roses"}},
		{"markdown", "**March 2023**\n* 25th: \"Rent\"\n**Monday, January 9th**", []string{"2023-03", "rent", "january 9"}},

		// Addresses and tags.
		{"email and urls", "Email me at jane.doe@example.com or check https://example.org/a?x=1 and nordstrom.com.",
			[]string{"jane.doe@example.com", "https://example.org/a?x=1", "nordstrom.com"}},
		{"www and brackets", "(see www.Example.com/Path).", []string{"www.example.com/path"}},
		{"not domains", "e.g. Node.js is fine, i.e. ok.", []string{"node"}},
		{"tags", "Loved the #blessed vibes from @caroline_s, #1 fan.", []string{"#blessed", "@caroline_s"}},

		// Degenerate input.
		{"empty", "", nil},
		{"spaces", " \n\t ", nil},
		{"punctuation", `!!! ??? "" '' “” … — ---`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Extract(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestDatesInWindows checks that the dates read in windows around the
// numbers come out as from the whole text, whether the numbers are far
// apart (a window each) or close (one window).
func TestDatesInWindows(t *testing.T) {
	dates := []string{"Monday, May 8, 2023", "in 2019", "the summer of 2021", "12/05/2019",
		"Caroline May 2024", "Cyber Monday, December 1st", "2000 people", "7 km", "in 1893", "last October 15th"}
	// "last October" is relative, and then "15th" is no date
	want := []string{"2023-05-08", "2019", "2021", "12/05/2019", "caroline", "2024-05", "cyber monday", "december 1",
		"2000 people", "7 km", "1893"}
	filler := strings.Repeat(" and then we walked along the river", 3) + " "
	for name, text := range map[string]string{
		"far":   filler + strings.Join(dates, filler) + filler,
		"close": strings.Join(dates, "; "),
		"edges": strings.Join(dates, filler),
	} {
		if got := Extract(text); !slices.Equal(got, want) {
			t.Errorf("%s: Extract(%q)\n got %q\nwant %q", name, text, got, want)
		}
	}
}

// TestEntitiesInvariants checks what must hold for any input: no panic,
// valid lower-case UTF-8, no empty or repeated entities.
func TestEntitiesInvariants(t *testing.T) {
	long := strings.Repeat("Caroline met Melanie at the Golden Gate Bridge on 8 May, 2023 and paid $20. ", 200)
	many := ""
	for i := range 100 {
		many += fmt.Sprintf("Per%c%cson went to Pla%c%cce. ", 'a'+i%26, 'a'+i/26, 'a'+i%26, 'a'+i/26)
	}
	inputs := []string{
		long, many,
		"\xff\xfe Caroline \xc3 Mel\xe2\x80 \"\xff\" 'x\xffy' $\xff5",
		"\x00\x01 Nul\x00Byte",
		"😀 Caroline 🎉 “unterminated ‘quotes «and» brackets",
		"İstanbul ΣΊΣΥΦΟΣ Ǆemal ǅemal",
		strings.Repeat("\"", 1000), strings.Repeat("'A ", 500), strings.Repeat("1,", 500) + "000",
		strings.Repeat("a", 100000),
		"9999999999999999999999999 km 0 May 0000 May 99, 99999 $ $$5 5% % #@ @# a@b@c.com http:// www.",
		"12/34/5678 1/1/1 2023-02-29 2024-02-29 29 February 2023 31 April 2023",
	}
	for _, in := range inputs {
		checkInvariants(t, in, Extract(in))
	}
	if got := Extract(many); len(got) != 200 || got[0] != "peraason" || got[199] != "plavdce" {
		t.Errorf("many names: %d entities, first %q, last %q; want 200 in order", len(got), got[0], got[len(got)-1])
	}
}

func checkInvariants(t *testing.T, in string, got []string) {
	t.Helper()
	seen := make(map[string]bool)
	for _, e := range got {
		switch {
		case e == "" || strings.TrimSpace(e) != e || strings.Contains(e, "  "):
			t.Errorf("Extract(%.60q): bad spacing in %q", in, e)
		case !utf8.ValidString(e):
			t.Errorf("Extract(%.60q): invalid UTF-8 in %q", in, e)
		case strings.ToLower(e) != e:
			t.Errorf("Extract(%.60q): %q is not lower-case", in, e)
		case seen[e]:
			t.Errorf("Extract(%.60q): %q repeated", in, e)
		}
		seen[e] = true
	}
}

func FuzzEntities(f *testing.F) {
	for _, s := range []string{
		"When did I go to the Nordstrom friends and family sale?",
		`My favourite book was "Charlotte's Web", 'The Alchemist' and “Becoming”.`,
		"[1:56 pm on 8 May, 2023] Caroline: I ran 5 km, paid $1,200 (20%) on 2023-05-07.",
		"mail a.b@c.com, see https://x.org/y #tag @handle «Le Petit Prince» 「千と千尋」",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkInvariants(t, s, Extract(s))
	})
}

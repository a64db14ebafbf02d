package dates

import (
	"strings"
	"testing"
	"time"
)

// turn is a typical conversation turn of about 200 bytes with two
// expressions.
const turn = "Melanie: Wow, that sounds amazing! I went camping with the kids last weekend " +
	"and we saw the Perseid meteor shower. Two weeks ago we painted a sunrise together; " +
	"they loved it so much."

// plainTurn is a turn of the same size without any.
const plainTurn = "Melanie: Wow, that sounds amazing! I went camping with the kids near the lake " +
	"and we saw the Perseid meteor shower. Then we painted a sunrise together by the fire; " +
	"they loved it so much."

func BenchmarkFind(b *testing.B) {
	if n := len(Find(turn, wed)); n != 2 {
		b.Fatalf("%d mentions, want 2", n)
	}
	b.SetBytes(int64(len(turn)))
	b.ReportAllocs()
	for b.Loop() {
		Find(turn, wed)
	}
}

func BenchmarkFindNoDates(b *testing.B) {
	b.SetBytes(int64(len(plainTurn)))
	b.ReportAllocs()
	for b.Loop() {
		Find(plainTurn, wed)
	}
}

// BenchmarkFind64KiB runs Find on 64 KiB of text dense with expressions and
// near misses.
func BenchmarkFind64KiB(b *testing.B) {
	text := strings.Repeat(turn+" On Monday, May 8, 2023, a few days ago, in 2022, 1500 points, in may; ", 400)[:64<<10]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Find(text, wed)
	}
}

func BenchmarkParse(b *testing.B) {
	for _, s := range []string{"2023-05-07T14:00:05Z", "1:56 pm on 8 May, 2023", "2023/05/30 (Tue) 23:40"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Parse(s, time.UTC); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package spec

import (
	"fmt"
	"strings"
)

// Count is n and noun, in the plural unless n is 1: "1 memory", "3
// memories", "0 turns". Nouns ending in a consonant and y take -ies.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if l := len(noun); l > 1 && noun[l-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[l-2])) {
		return fmt.Sprintf("%d %sies", n, noun[:l-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

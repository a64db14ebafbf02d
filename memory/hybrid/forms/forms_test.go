package forms

import (
	"slices"
	"strings"
	"testing"
)

// The tables read one way: every form has one base, which lists it, and
// no form is a base (rewriting one word could not then make another
// form); no word is twice in the tables, as a base or a form.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, tab := range []string{table, spellings, degrees, plurals} {
		for _, w := range strings.Fields(tab) {
			if seen[w] {
				t.Errorf("%q is twice in the tables: one would hide the other", w)
			}
			seen[w] = true
		}
	}
	if len(base) < 60 {
		t.Fatalf("%d forms read from the table", len(base))
	}
	for form, b := range base {
		if !slices.Contains(Forms(b), form) {
			t.Errorf("%q: base %q, whose forms are %q", form, b, Forms(b))
		}
		if Forms(form) != nil {
			t.Errorf("%q is a form (of %q) and a base", form, b)
		}
		if len(form) < 3 || len(form) > 16 {
			t.Errorf("form %q: lookup reads forms of 3 to 16 letters", form)
		}
		if form != strings.ToLower(form) || strings.ContainsFunc(form, func(r rune) bool { return r < 'a' || r > 'z' }) {
			t.Errorf("form %q is not a word in lower case", form)
		}
	}
	if Base("colour") != "color" || Base("organisation") != "organization" || !slices.Contains(Forms("favorite"), "favourite") {
		t.Errorf(`Base("colour"), Base("organisation"), Forms("favorite") = %q, %q, %q`, Base("colour"), Base("organisation"), Forms("favorite"))
	}
	if Base("bought") != "buy" || Base("buy") != "" || Base("saw") != "" {
		t.Errorf(`Base("bought"), Base("buy"), Base("saw") = %q, %q, %q`, Base("bought"), Base("buy"), Base("saw"))
	}
}

func TestBasesAndRewrite(t *testing.T) {
	for _, c := range []struct{ text, bases, rewrite string }{
		{"We met and went home.", "meet go", "We met meet and went go home."},
		{"When did we first meet?", "", "When did we first meet?"},
		// capitalised: a form at the start of a sentence, a name inside
		// one; in capitals, an acronym
		{"Bought it. Went home! (Met Anna)", "buy go meet", "Bought buy it. Went go home! (Met meet Anna)"},
		{"I asked Drew, Won and Sung; the LED and the SAT.", "", "I asked Drew, Won and Sung; the LED and the SAT."},
		{"Caroline: Found it", "find", "Caroline: Found find it"},
		// a form that is also a given name is one, capitalised, anywhere
		{"Drew said hi. Won and Sung came. drew", "say come draw", "Drew said say hi. Won and Sung came come. drew draw"},
		// joined to more of a token, as bleve's tokenizer joins them: a
		// contraction, a domain, digits, an underscore, a possessive; or
		// a hyphenated word, which names no event
		{"I won't go; went.com; met2 ran_fast 3won; drew's", "", "I won't go; went.com; met2 ran_fast 3won; drew's"},
		{"a self-taught, home-grown, made-up story", "", "a self-taught, home-grown, made-up story"},
		{"It won’t, he said: 'we won'.", "say win", "It won’t, he said say: 'we won win'."},
		// a British spelling, in any case but capitals: its base is the
		// American one
		{"My favourite colour. I told Mum; we organised it. COLOUR", "favorite color tell mom organized", "My favourite favorite colour color. I told tell Mum mom; we organised organized it. COLOUR"},
		// a spelling may take a possessive (bleve indexes "mum" of
		// "mum's"), a verb's form not ("Drew's"); Grey and Sat
		// capitalised are names, anywhere
		{"my mum's birthday; our neighbour’s dog; a grey cat", "mom neighbor gray", "my mum mom's birthday; our neighbour neighbor’s dog; a grey gray cat"},
		{"Sat down with Earl Grey. Grey skies", "", "Sat down with Earl Grey. Grey skies"},
		// words that hold a form are not one
		{"leftover metal, sentimental", "", "leftover metal, sentimental"},
		{"Wir gingen; él fue; we ran.", "run", "Wir gingen; él fue; we ran run."},
		// an adjective's degrees; capitalised inside a sentence, a name
		{"How much older am I? The biggest and happiest. Neil Young", "old big happy", "How much older old am I? The biggest big and happiest happy. Neil Young"},
		// an irregular plural
		{"Our children and their wives", "child wife", "Our children child and their wives wife"},
		// a plural may take a possessive, a degree not
		{"the children's school; the women’s team; the oldest's turn", "child woman", "the children child's school; the women woman’s team; the oldest's turn"},
		// left out: mostly another word ("as I said earlier", "no longer")
		{"As I said earlier, it's no longer closed, man.", "say", "As I said say earlier, it's no longer closed, man."},
		{"", "", ""},
	} {
		if got := Bases(c.text); got != c.bases {
			t.Errorf("Bases(%q) = %q, want %q", c.text, got, c.bases)
		}
		if got := Rewrite(c.text); got != c.rewrite {
			t.Errorf("Rewrite(%q) = %q, want %q", c.text, got, c.rewrite)
		}
	}
}

func BenchmarkBases(b *testing.B) {
	text := strings.Repeat("Yesterday I went to the market with my sister and we bought fresh bread, then met Anna for coffee. ", 4)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Bases(text)
	}
}

package kinds

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	if !strings.HasSuffix(table, "\n") {
		t.Fatal("the table does not end its last line")
	}
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) < 40000 {
		t.Fatalf("the table has %d lines, want 40,000 and more of WordNet's nouns", len(lines))
	}
	prev := ""
	for i, l := range lines {
		k, v, ok := strings.Cut(l, "\t")
		if !ok || k <= prev || v == "" || strings.Contains(v, "\t") {
			t.Fatalf("line %d (%q) is not a key, a tab and kinds, sorted after %q", i, l, prev)
		}
		prev = k
		if base, ok := strings.CutPrefix(v, "="); ok {
			if bv, found := line(base); !found || strings.HasPrefix(bv, "=") {
				t.Fatalf("line %d (%q): its base %q is missing or itself a form", i, l, base)
			}
		}
	}
	// every key is found, and nothing between them
	for i, l := range lines {
		k, v, _ := strings.Cut(l, "\t")
		if got, ok := line(k); !ok || got != v {
			t.Fatalf("line(%q) = %q, %v; want line %d's %q", k, got, ok, i, v)
		}
		if _, ok := line(k + "\x01"); ok {
			t.Fatalf("line(%q) is found", k+"\x01")
		}
	}
	if _, ok := line(""); ok {
		t.Fatal(`line("") is found`)
	}
}

func TestOf(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // among the kinds
		not  []string
	}{
		{"My family and I went on a road trip to Oregon", []string{"state"}, nil},
		{"I had a little car accident last Friday", []string{"mishap"}, nil},
		{"I've been practising the violin", []string{"instrument"}, nil},
		{"a conference in Detroit", []string{"city"}, nil},
		{"We visited three cities", []string{"municipality"}, nil}, // -ies
		{"the mice got into the kitchen", []string{"rodent"}, nil}, // irregular plural
		{"Soccer on Sunday", []string{"sport"}, nil},
	} {
		got := strings.Fields(Of(c.text))
		for _, w := range c.want {
			if !contains(got, w) {
				t.Errorf("Of(%q) = %v, want %q among them", c.text, got, w)
			}
		}
	}
	if got := Of("it is what it is, and so on"); got != "" {
		t.Errorf("stop words and short words have kinds: %q", got)
	}
	if a, b := Of("Oregon and Oregon"), Of("Oregon"); a != b {
		t.Errorf("a noun said twice counts twice: %q against %q", a, b)
	}
	if ks := strings.Fields(Of("Detroit, Boston and Chicago")); strings.Count(" "+strings.Join(ks, " ")+" ", " city ") != 1 {
		t.Errorf("Of(three cities) = %v, want city once", ks)
	}
}

func contains(s []string, w string) bool {
	for _, x := range s {
		if x == w {
			return true
		}
	}
	return false
}

// TestGenerated checks that kinds.txt is what internal/gen writes from
// WordNet's files, where they are installed (Debian: wordnet-base).
func TestGenerated(t *testing.T) {
	dict := os.Getenv("AGENTMEM_WORDNET")
	if dict == "" {
		dict = "/usr/share/wordnet"
	}
	if _, err := os.Stat(filepath.Join(dict, "data.noun")); err != nil {
		t.Skipf("WordNet's noun files are not in %s (Debian: apt install wordnet-base, or set AGENTMEM_WORDNET): not checking that kinds.txt is generated from them", dict)
	}
	out := filepath.Join(t.TempDir(), "kinds.txt")
	if msg, err := exec.Command("go", "run", "./internal/gen", "-dict", dict, "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != table {
		t.Fatalf("kinds.txt differs from what internal/gen writes from %s: run go generate", dict)
	}
}

func TestPlural(t *testing.T) {
	for w, want := range map[string]bool{
		"cities": true, "states": true, "classes": true, "arts": true, "events": true, "books": true,
		"people": true, "children": true, "mice": true, "teeth": true,
		"news": false, "series": false, "physics": false, "class": false, "business": false,
		"status": false, "analysis": false, "times": true, "glasses": true, "politics": false, "species": false, "bus": false, "city": false, "caroline's": false, "jon’s": false,
	} {
		if got := Plural(w); got != want {
			t.Errorf("Plural(%q) = %v, want %v", w, got, want)
		}
	}
}

// Command gen writes kinds.txt, the table package kinds embeds, from
// the noun files of WordNet 3.0 (index.noun, data.noun, noun.exc; on
// Debian the package wordnet-base puts them in /usr/share/wordnet):
//
//	go run ./memory/hybrid/kinds/internal/gen -dict /usr/share/wordnet -out memory/hybrid/kinds/kinds.txt
//
// Each line is a noun and, after a tab, the words of the synsets above its
// first two senses (hypernyms and instance hypernyms, two levels up,
// nearest first, each word once), leaving out the synsets fewer than six
// levels below WordNet's root (entity → physical entity → object → whole →
// living thing → organism: the words that would be kinds of most nouns),
// or "=" and the noun an irregular plural is a form of ("mice" →
// "=mouse"). Lines are sorted by their first field. The flags -senses,
// -depth and -min-depth change the three numbers (EVALS.md, "Kinds", says
// what each costs and wins). -dominant leaves out a word whose reading as
// a noun is rarer than its reading as a verb, adjective or adverb, by the
// times each was tagged in WordNet's sense-tagged texts (cntlist.rev):
// "like", "know", "take", "well" (screened, not adopted: EVALS.md, "Kinds
// only for words mostly read as nouns"). A table written with other
// numbers, or from another WordNet, changes how documents are derived:
// bump hybrid.DocVersion with it, so that stores rebuild their indexes
// (TestDocVersionPinsTheTables in package hybrid fails until the new
// table's sum is pinned to a new version).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

var (
	senses   = 2     // of each noun, in WordNet's order (most frequent first)
	depth    = 2     // levels of hypernyms
	minDepth = 6     // leave out synsets nearer WordNet's root than this
	dominant = false // -dominant: only words read as nouns at least as often as otherwise
)

type synset struct {
	words  []string
	hypers []string // offsets
	depth  int      // the shortest path up to a root
}

// depths sets every synset's depth: 0 for a root (no hypernym).
func depths(syn map[string]synset) {
	memo := map[string]int{}
	var depth func(off string) int
	depth = func(off string) int {
		if d, ok := memo[off]; ok {
			return d
		}
		memo[off] = 0 // WordNet's nouns have no cycles; this would end one
		best := -1
		for _, h := range syn[off].hypers {
			if d := depth(h) + 1; best < 0 || d < best {
				best = d
			}
		}
		memo[off] = max(best, 0)
		return memo[off]
	}
	for off, s := range syn {
		s.depth = depth(off)
		syn[off] = s
	}
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "directory of WordNet 3.0's noun files")
	out := flag.String("out", "kinds.txt", "file to write")
	flag.IntVar(&senses, "senses", senses, "senses of each noun, most frequent first")
	flag.IntVar(&depth, "depth", depth, "levels of hypernyms above each sense")
	flag.IntVar(&minDepth, "min-depth", minDepth, "leave out the words of synsets fewer than this many levels below WordNet's root (the most general: person, act, object)")
	flag.BoolVar(&dominant, "dominant", dominant, "leave out words whose reading as a noun is rarer than as another part of speech (WordNet's tag counts)")
	flag.Parse()
	if err := run(*dict, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dict, out string) error {
	syn, err := readData(filepath.Join(dict, "data.noun"))
	if err != nil {
		return err
	}
	idx, err := readIndex(filepath.Join(dict, "index.noun"))
	if err != nil {
		return err
	}
	depths(syn)
	tags := map[string]readings{}
	if dominant {
		if tags, err = readCounts(filepath.Join(dict, "cntlist.rev")); err != nil {
			return err
		}
	}
	lines := map[string]string{}
	for w, offs := range idx {
		if strings.Contains(w, "_") {
			continue // a phrase: documents are looked up word by word
		}
		if t := tags[w]; t.noun < t.other {
			continue // mostly a verb, adjective or adverb
		}
		if ks := kindsOf(w, offs, syn); len(ks) > 0 {
			lines[w] = strings.Join(ks, " ")
		}
	}
	exc, err := os.ReadFile(filepath.Join(dict, "noun.exc"))
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(exc), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || strings.Contains(f[0], "_") {
			continue
		}
		if _, own := lines[f[0]]; own {
			continue
		}
		for _, base := range f[1:] { // a form may have several bases
			if v := lines[base]; v != "" && !strings.HasPrefix(v, "=") {
				lines[f[0]] = "=" + base
				break
			}
		}
	}
	return write(out, lines)
}

// kindsOf walks up from the first senses of a noun, breadth first.
func kindsOf(w string, offs []string, syn map[string]synset) []string {
	type at struct {
		off string
		d   int
	}
	var front []at
	seen := map[string]bool{}
	for _, o := range offs[:min(senses, len(offs))] {
		front = append(front, at{o, 0})
		seen[o] = true
	}
	var ks []string
	for len(front) > 0 {
		a := front[0]
		front = front[1:]
		s := syn[a.off]
		if a.d > 0 && s.depth >= minDepth {
			for _, lemma := range s.words {
				for _, k := range strings.Split(lemma, "_") {
					if k != "" && k != w && !slices.Contains(ks, k) {
						ks = append(ks, k)
					}
				}
			}
		}
		if a.d < depth {
			for _, h := range s.hypers {
				if !seen[h] {
					seen[h] = true
					front = append(front, at{h, a.d + 1})
				}
			}
		}
	}
	return ks
}

// readData reads data.noun: offset, lexicographer file, type, word count
// (hex), words with their lex ids, pointer count, pointers.
func readData(path string) (map[string]synset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syn := map[string]synset{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "  ") {
			continue // the licence
		}
		p := strings.Fields(l)
		n, err := strconv.ParseInt(p[3], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: synset %s: %w", path, p[0], err)
		}
		var s synset
		for i := range int(n) {
			s.words = append(s.words, strings.ToLower(p[4+2*i]))
		}
		i := 4 + 2*int(n)
		pc, err := strconv.Atoi(p[i])
		if err != nil {
			return nil, fmt.Errorf("%s: synset %s: %w", path, p[0], err)
		}
		i++
		for range pc {
			sym, off, pos := p[i], p[i+1], p[i+2]
			i += 4
			if (sym == "@" || sym == "@i") && pos == "n" {
				s.hypers = append(s.hypers, off)
			}
		}
		syn[p[0]] = s
	}
	return syn, sc.Err()
}

// readings is how often a word was tagged as a noun and, of the other
// parts of speech, as the most frequent one.
type readings struct{ noun, other int }

// readCounts reads cntlist.rev: a sense key (lemma%ss_type:…, ss_type 1
// a noun, 2 a verb, 3 or 5 an adjective, 4 an adverb), the sense's
// number, and how often it was tagged.
func readCounts(path string) (map[string]readings, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	byPos := map[string]*[6]int{}
	for _, l := range strings.Split(string(raw), "\n") {
		p := strings.Fields(l)
		if len(p) == 0 {
			continue
		}
		lemma, key, ok := strings.Cut(p[0], "%")
		n, err := strconv.Atoi(p[len(p)-1])
		if !ok || len(p) != 3 || key == "" || key[0] < '1' || key[0] > '5' || err != nil {
			return nil, fmt.Errorf("%s: bad line %q", path, l)
		}
		if byPos[lemma] == nil {
			byPos[lemma] = new([6]int)
		}
		pos := int(key[0] - '0')
		if pos == 5 {
			pos = 3 // a satellite adjective is an adjective
		}
		byPos[lemma][pos] += n
	}
	out := make(map[string]readings, len(byPos))
	for lemma, c := range byPos {
		out[lemma] = readings{noun: c[1], other: max(c[2], c[3], c[4])}
	}
	return out, nil
}

// readIndex reads index.noun: lemma, pos, synset count, pointer count,
// pointer symbols, sense count, tagged sense count, offsets by sense.
func readIndex(path string) (map[string][]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	idx := map[string][]string{}
	for _, l := range strings.Split(string(raw), "\n") {
		if l == "" || strings.HasPrefix(l, "  ") {
			continue
		}
		p := strings.Fields(l)
		sc, err1 := strconv.Atoi(p[2])
		pc, err2 := strconv.Atoi(p[3])
		if err1 != nil || err2 != nil || len(p) < 6+pc+sc {
			return nil, fmt.Errorf("%s: bad line %q", path, l)
		}
		idx[p[0]] = p[6+pc : 6+pc+sc]
	}
	return idx, nil
}

func write(out string, lines map[string]string) error {
	keys := make([]string, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, k := range keys {
		fmt.Fprintf(w, "%s\t%s\n", k, lines[k])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package hybrid

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
)

// The embedded model reads the features this code computes, and gives the
// chances its trainer gave for the same rows (testdata/learned_check.json,
// written with the model).
func TestLearnedModelMatchesItsTrainer(t *testing.T) {
	m, err := theModel()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/learned_check.json")
	if err != nil {
		t.Fatal(err)
	}
	var check struct {
		X [][]float64 `json:"x"`
		P []float64   `json:"p"`
	}
	if err := json.Unmarshal(b, &check); err != nil {
		t.Fatal(err)
	}
	if len(check.X) == 0 || len(check.X) != len(check.P) {
		t.Fatalf("%d rows, %d chances", len(check.X), len(check.P))
	}
	for i, row := range check.X {
		var f features
		copy(f[:], row)
		if got := m.predict(&f); math.Abs(got-check.P[i]) > 1e-9 {
			t.Errorf("row %d: %v, the trainer said %v", i, got, check.P[i])
		}
	}
}

func TestParseModelRefusesAnotherModel(t *testing.T) {
	names, _ := json.Marshal(featureNames[:])
	for name, doc := range map[string]string{
		"not json":        `{`,
		"fewer features":  `{"features":["score"],"fits":[{"trees":[[{"f":-1}]]}]}`,
		"renamed feature": strings.Replace(`{"features":NAMES,"fits":[{"trees":[[{"f":-1}]]}]}`, "NAMES", strings.Replace(string(names), `"user"`, `"role"`, 1), 1),
		"no fits":         strings.Replace(`{"features":NAMES,"fits":[]}`, "NAMES", string(names), 1),
		"empty tree":      strings.Replace(`{"features":NAMES,"fits":[{"trees":[[]]}]}`, "NAMES", string(names), 1),
		"unknown feature": strings.Replace(`{"features":NAMES,"fits":[{"trees":[[{"f":19,"l":1,"r":2},{"f":-1},{"f":-1}]]}]}`, "NAMES", string(names), 1),
		"loop":            strings.Replace(`{"features":NAMES,"fits":[{"trees":[[{"f":0,"l":0,"r":1},{"f":-1}]]}]}`, "NAMES", string(names), 1),
		"past the tree":   strings.Replace(`{"features":NAMES,"fits":[{"trees":[[{"f":0,"l":1,"r":3},{"f":-1}]]}]}`, "NAMES", string(names), 1),
	} {
		if _, err := parseModel([]byte(doc)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	ok := strings.Replace(`{"features":NAMES,"fits":[{"base":-1,"trees":[[{"f":9,"t":0.5,"l":1,"r":2},{"f":-1,"v":1},{"f":-1,"v":-1}]]}]}`, "NAMES", string(names), 1)
	m, err := parseModel([]byte(ok))
	if err != nil {
		t.Fatal(err)
	}
	var question, statement features
	question[9] = 1
	if p, want := m.predict(&statement), 1/(1+math.Exp(0)); p != want {
		t.Errorf("statement: %v, want %v", p, want)
	}
	if p, want := m.predict(&question), 1/(1+math.Exp(2)); math.Abs(p-want) > 1e-12 {
		t.Errorf("question: %v, want %v", p, want)
	}
}

// What the model reads of a pool: each feature of a small pool, worked
// out by hand.
func TestFeaturesOf(t *testing.T) {
	day := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	mem := func(session string, turn int, speaker, text string) memory.Memory {
		return memory.Memory{ID: fmt.Sprintf("%s:%d", session, turn), SessionID: session, Turn: turn, Role: "user", Speaker: speaker, Text: text, SessionDate: day}
	}
	hits := []memory.Hit{
		{Memory: mem("a", 1, "Maria", "I volunteered at the homeless shelter."), Score: 1},
		{Memory: mem("a", 2, "John", "Which shelter?"), Score: 0.5},
		{Memory: mem("b", 0, "Maria", "Volunteering is fun, fun"), Score: 0.4},
	}
	kept := []Fused{
		{Score: 1, TextRank: 1, VectorRank: 2, TextScore: 4, VectorScore: 0.5},
		{Score: 0.25, TextRank: 0, VectorRank: 1, VectorScore: 0.8},
		{Score: 0.4, TextRank: 2, VectorRank: 0, TextScore: 2},
	}
	q := memory.Query{Text: "Where does Maria volunteer at a shelter?", Speakers: []string{"Maria"}}
	fs := featuresOf(q, hits, kept)
	if len(fs) != 3 {
		t.Fatalf("%d rows", len(fs))
	}
	// the query's content words: maria, volunteer, shelter; maria is in
	// no text, volunteer in two of three, shelter in two of three; a
	// content word said twice counts twice
	rare, common := math.Log(1+3.0/1), math.Log(1+3.0/3)
	want := []features{
		{1, 1, 1, 0.5, 1, 0.5 / 0.8, 0, math.Log1p(6), math.Log1p(3), 0, 2 * common / (rare + 2*common), 1, 0, math.Log(2), 1, 1, 1, 0, 1},
		{0.5, 0.25, 0, 1, 0, 1, 1, math.Log1p(2), math.Log1p(1), 1, common / (rare + 2*common), 0, 1, math.Log(2), 0, 1, 0.5, 0, 1},
		{0.4, 0.4, 0.5, 0, 0.5, 0, 0, math.Log1p(4), math.Log1p(3), 0, common / (rare + 2*common), 1, 0, 0, 1, 0, 1.0 / 3, 0, 1},
	}
	for i := range want {
		for j := range want[i] {
			if math.Abs(fs[i][j]-want[i][j]) > 1e-12 {
				t.Errorf("candidate %d, %s: %v, want %v", i, featureNames[j], fs[i][j], want[i][j])
			}
		}
	}
}

// A word and its inflections meet; quotes and a possessive are cut; stop
// words and short words are not content words.
func TestContentWord(t *testing.T) {
	for w, want := range map[string]string{
		"race": "rac", "races": "rac", "raced": "rac", "racing": "rac",
		"volunteering": "volunteer", "volunteered": "volunteer", "volunteers": "volunteer",
		"john's": "john", "'biscuit'": "biscuit", "class": "class", "classes": "class",
		"boxes": "box", "watches": "watch", "homes": "hom", "home": "hom", "hikes": "hik", "hiking": "hik",
		"quickly": "quick", "family": "family", "early": "early", "dogs": "dog",
		"its": "", "the": "", "ok": "", "yourselves": "",
	} {
		got, ok := contentWord([]byte(w))
		if string(got) != want || ok != (want != "") {
			t.Errorf("%q: %q %v, want %q", w, got, ok, want)
		}
	}
}

// Words of any script are words: the learned order reads a French or
// German conversation's words whole, a typographic apostrophe as ASCII's,
// and a character of Han, Hiragana or Katakana as a word of its own.
func TestWordsOfEveryScript(t *testing.T) {
	for _, c := range []struct {
		text  string
		words []string
	}{
		{"J'ai préféré le café à l'école.", []string{"j'ai", "préféré", "le", "café", "à", "l'école"}},
		{"Über Straßen GEHEN", []string{"über", "straßen", "gehen"}},
		{"Caroline’s dog isn’t ‘here’", []string{"caroline's", "dog", "isn't", "'here'"}},
		{"cafe\u0301 ok", []string{"café", "ok"}},         // composed: a combining accent meets a precomposed one
		{"\u0301abc d\u0301", []string{"abc", "d\u0301"}}, // a mark starts no word
		{"Paris東京 コーヒー ーabc", []string{"paris", "東", "京", "コ", "ー", "ヒ", "ー", "ー", "abc"}},
		{"ΟΔΟΣ οδος", []string{"οδοσ", "οδοσ"}},
		{"Hawaiʼi", []string{"hawai'i"}},
		{"猫が好き, I like 猫", []string{"猫", "が", "好", "き", "i", "like", "猫"}},
		{"Москва 2023 — ok", []string{"москва", "ok"}},
	} {
		var got []string
		var buf [64]byte
		for i := 0; ; {
			var w []byte
			if w, i = nextWord(c.text, i, buf[:]); len(w) == 0 {
				break
			}
			got = append(got, string(w))
		}
		if !slices.Equal(got, c.words) {
			t.Errorf("%q: words %q, want %q", c.text, got, c.words)
		}
	}
	q := queryContent("Quel café a-t-elle préféré ?")
	if !slices.Equal(q, []string{"quel", "café", "ell", "préféré"}) {
		t.Fatalf("query content words %q", q)
	}
	if c := countWords("Elle a préféré le café noir.", q); c.words != 6 || c.content != 4 || c.has != 0b1110 {
		t.Errorf("counts %+v, want 6 words, 4 content words (elle, préféré, café, noir; elle read as ell), the query's café, elle and préféré held", c)
	}
	for _, w := range []string{"où", "ou\u0300", "ça"} {
		if _, ok := contentWord([]byte(w)); ok {
			t.Errorf("%q, two letters, counted as a content word", w)
		}
	}
	for _, w := range []string{"दूध", "हिंदी", "café"} { // an Indic vowel sign is part of its syllable
		if _, ok := contentWord([]byte(w)); !ok {
			t.Errorf("%q, three letters or more, not counted as a content word", w)
		}
	}
}

// A character of Han or Katakana is a content word of its own, unless it
// is a function character (a Hiragana particle, Chinese's 的, 什, 么, the
// Katakana prolonged sound mark), so that a Chinese or Japanese question
// covers the turns that hold its words as an English one does.
func TestContentCharacters(t *testing.T) {
	for _, c := range []struct {
		query string
		words []string
	}{
		{"我妹妹的猫叫什么名字？", []string{"妹", "猫", "叫", "名", "字"}},
		{"猫の名前は何ですか", []string{"猫", "名", "前", "何"}},
		{"コーヒー is hot", []string{"コ", "ヒ", "hot"}},
	} {
		if got := queryContent(c.query); !slices.Equal(got, c.words) {
			t.Errorf("%q: content words %q, want %q", c.query, got, c.words)
		}
	}
	q := queryContent("我妹妹的猫叫什么名字？")
	if c := countWords("我妹妹的猫叫小花。", q); c.has != 0b111 || c.content != 6 {
		t.Errorf("the answer's counts %+v, want the query's 妹, 猫 and 叫 held (0b111) among 6 content words (妹 妹 猫 叫 小 花)", c)
	}
	if c := countWords("你好！很高兴认识你。", q); c.has != 0 {
		t.Errorf("a greeting holds the query's words %b", c.has)
	}
}

// An ASCII text is read as it always was (the committed model was fit on
// such words): the same words as a scan of ASCII letters and apostrophes.
func TestASCIIWordsUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcXYZ'  .,-19?!\t\n"
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		text := string(b)
		var want []string
		for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '\'') }) {
			want = append(want, f)
		}
		var got []string
		var buf [64]byte
		for i := 0; ; {
			var w []byte
			if w, i = nextWord(text, i, buf[:]); len(w) == 0 {
				break
			}
			got = append(got, string(w))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q: words %q, want %q", text, got, want)
		}
	}
}

// The learned order reorders pools like those it was fit on: with one
// side empty (no word of the query matched, or no vectors yet) the fused
// order stands, scores and all.
func TestLearnedNeedsBothSides(t *testing.T) {
	day := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	ms := map[string]memory.Memory{}
	var textOnly, both []Fused
	for i := range 6 {
		id := fmt.Sprintf("s:%d", i)
		ms[id] = memory.Memory{ID: id, SessionID: "s", Turn: i, Role: "user", SessionDate: day, Text: strings.Repeat("word ", 1+5*i) + "?"}
		textOnly = append(textOnly, Fused{ID: id, Score: 1 / float64(i+1), TextRank: i + 1, TextScore: 6 - float64(i)})
		f := textOnly[i]
		f.VectorRank, f.VectorScore = 6-i, 0.1*float64(i+1)
		both = append(both, f)
	}
	q := memory.Query{Text: "word", K: 6, Fusion: memory.RRF, Vector: []float32{1}}
	for i, h := range Rank(q, textOnly, ms) {
		if h.Memory.ID != textOnly[i].ID || h.Score != textOnly[i].Score || h.Prior != 0 {
			t.Errorf("text side alone: hit %d is %s scoring %v (prior %v), want %s at its fused %v", i, h.Memory.ID, h.Score, h.Prior, textOnly[i].ID, textOnly[i].Score)
		}
	}
	for _, h := range Rank(q, both, ms) {
		if h.Prior == 0 {
			t.Errorf("both sides: %s was not scored by the learned order", h.Memory.ID)
		}
	}
}

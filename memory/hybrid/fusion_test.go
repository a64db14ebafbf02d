package hybrid

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"agentmem/memory"
	"agentmem/memory/hybrid/entities"
)

func ids(fs []Fused) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return strings.Join(out, " ")
}

func TestFuse(t *testing.T) {
	text := []Ranked{{"a", 9}, {"b", 5}, {"c", 1}}
	vec := []Ranked{{"c", .9}, {"b", .8}, {"d", .1}}
	cases := []struct {
		fusion memory.Fusion
		k      int
		want   string
	}{
		{memory.RRF, 10, "c b a d"}, // c: 1/63+1/61 edges out b: 1/62+1/62
		{memory.RRF, 2, "c b"},
		{memory.TextOnly, 10, "a b c"},
		{memory.VectorOnly, 10, "c b d"},
		{memory.Rerank, 10, "b c d"}, // text order within the vector pool; d keeps vector order
	}
	for _, c := range cases {
		got := Fuse(memory.Query{K: c.k, Fusion: c.fusion}, text, vec)
		got = got[:min(c.k, len(got))]
		if ids(got) != c.want {
			t.Errorf("%s k=%d: %s, want %s", c.fusion, c.k, ids(got), c.want)
		}
	}
	got := Fuse(memory.Query{K: 10, Fusion: memory.RRF}, text, vec)
	if got[0].TextRank != 3 || got[0].VectorRank != 1 || got[2].VectorRank != 0 {
		t.Errorf("ranks = %+v", got)
	}
	// weights move the balance: a heavy text side puts a first
	got = Fuse(memory.Query{K: 10, Fusion: memory.RRF, Weights: memory.Weights{Text: 5, Vector: 0.01}}, text, vec)
	if got[0].ID != "a" {
		t.Errorf("text-weighted memory.RRF = %s, want a first", ids(got))
	}
	// with no vectors, memory.RRF is the text ranking
	if got := Fuse(memory.Query{K: 10, Fusion: memory.RRF}, text, nil); ids(got) != "a b c" {
		t.Errorf("text-only memory.RRF = %s", ids(got))
	}
}

// The names of a namespace's speakers in a query are matched as entities
// only; its other words, other names and the words of longer entities stay
// in the text's match.
func TestSpeakersLeaveTheText(t *testing.T) {
	for _, c := range []struct {
		query    string
		speakers []string
		text     string
	}{
		{"What did Caroline's sister say?", []string{"Caroline", "Melanie"}, "What did sister say?"},
		{"Who is Tim and John’s favorite player?", []string{"John", "Tim"}, "Who is and favorite player?"},
		{"When did Caroline go to the LGBTQ support group?", []string{"Caroline"}, "When did go to the LGBTQ support group?"},
		{"What did Alvarez recommend?", []string{"Dr. Alvarez"}, "What did recommend?"},
		{"What kind of dog did Sam get?", []string{"Caroline", "Melanie"}, "What kind of dog did Sam get?"},
		{"What did Caroline say?", nil, "What did Caroline say?"},
		{"what did caroline say?", []string{"Caroline"}, "what did caroline say?"},
		{"Did we watch Lord of the Rings in 2023?", []string{"Lord"}, "Did we watch Lord of the Rings in 2023?"},
		{"Chess", []string{"Caroline"}, "Chess"},
		{"Caroline", []string{"Caroline"}, ""},
		{"Did Rose like the rose garden?", []string{"Rose"}, "Did like the rose garden?"},
		{"When will Will visit?", []string{"Will"}, "When will visit?"},
		{"Did John shop at John Lewis?", []string{"John"}, "Did John shop at John Lewis?"},
		{"Did Mary Ann go?", []string{"Mary Ann"}, "Did go?"},
		{"Did Ann go?", []string{"Mary Ann"}, "Did go?"},
		{"What did JOHN'S sister say?", []string{"John"}, "What did sister say?"},
		{"What did Caroline\uff07s sister say?", []string{"Caroline"}, "What did sister say?"},
		{"What did O'Brien say?", []string{"O'Brien"}, "What did O'Brien say?"},
	} {
		text, ents := lexical(memory.Query{Text: c.query, Speakers: c.speakers})
		if text != c.text {
			t.Errorf("lexical(%q, speakers %q) text = %q, want %q", c.query, c.speakers, text, c.text)
		}
		if want := entities.Extract(c.query); !slices.Equal(ents, want) {
			t.Errorf("lexical(%q) entities = %q, want %q", c.query, ents, want)
		}
	}
	if got := QueryNames("Did Caroline\u2019s friend Sam visit Paris in May 2023 with Dr. Alvarez?"); !slices.Equal(got, []string{"caroline", "sam", "paris", "alvarez"}) {
		t.Errorf("QueryNames = %q", got)
	}
	for _, c := range []struct {
		speaker string
		names   []string
		want    bool
	}{
		{"Caroline", []string{"caroline"}, true},
		{"Dr. Alvarez", []string{"alvarez"}, true},
		{"Caroline", []string{"carol"}, false},
		{"user", []string{"caroline"}, false},
	} {
		if got := SpeakerNamed(c.speaker, c.names); got != c.want {
			t.Errorf("SpeakerNamed(%q, %q) = %v", c.speaker, c.names, got)
		}
	}
	// the text is matched without the speaker's name, on the text and on
	// the kinds of the memories' nouns
	q := memory.Query{Text: "What did Caroline say?", Speakers: []string{"Caroline"}}
	raw, err := json.Marshal(TextMatch(q))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), `"match":"What did say?"`); n != 2 || strings.Contains(string(raw), `"match":"What did Caroline say?"`) {
		t.Errorf("TextMatch matches %d times without the speaker's name, want 2 (text, kinds): %s", n, raw)
	}
	// a speaker's name alone is still matched, as an entity
	raw, err = json.Marshal(TextMatch(memory.Query{Text: "Caroline", Speakers: []string{"Caroline"}}))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(raw); !strings.Contains(s, `"match_phrase":"caroline","field":"entities"`) || strings.Contains(s, `"field":"text"`) {
		t.Errorf("TextMatch(Caroline) = %s", s)
	}
}

func TestTextQueryTree(t *testing.T) {
	q := memory.Query{Namespace: "n1", Text: "Nordstrom sale", SessionID: "s1", K: 10}
	raw, err := json.Marshal(SearchRequest(q))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for _, want := range []string{`"term":"n1","field":"namespace"`, `"term":"s1","field":"session_id"`, `"match":"Nordstrom sale","field":"text"`, `"match_phrase":"nordstrom","field":"entities"`, fmt.Sprintf(`"size":%d`, memory.DefaultPool(10))} {
		if !strings.Contains(s, want) {
			t.Errorf("request lacks %s:\n%s", want, s)
		}
	}
	if SearchRequest(memory.Query{Namespace: "n"}) != nil {
		t.Error("an empty query built a request")
	}
}

// Equal fused scores come in memory.TieOrder, on every run (bleve breaks
// ties by its internal order): a candidate only the text side found before
// the one only the vector side found at the same rank, each side by its
// rank.
func TestFuseTies(t *testing.T) {
	var text, vector []Ranked
	var want []string
	for i := range 40 {
		text = append(text, Ranked{ID: fmt.Sprint("t", i), Score: float64(100 - i)})
		vector = append(vector, Ranked{ID: fmt.Sprint("v", i), Score: 1 - float64(i)/100})
		want = append(want, fmt.Sprint("t", i), fmt.Sprint("v", i))
	}
	for _, fusion := range []memory.Fusion{memory.RRF} { // rsf's relative scores do not tie exactly
		for range 20 {
			var got []string
			for _, f := range Fuse(memory.Query{Fusion: fusion}, text, vector) {
				got = append(got, f.ID)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s fused %v, want %v", fusion, got, want)
			}
		}
	}
}

// Lists deeper than the pool (a period's deeper search) fuse the pool as
// it fuses alone, for every fusion (RSF's min-max and RRF's ranks would
// otherwise read the deeper lists), and append what only the deeper
// lists hold, with its deeper ranks.
func TestFuseDeeperLists(t *testing.T) {
	var text, vec []Ranked
	for i := range 12 {
		text = append(text, Ranked{ID: fmt.Sprintf("t%d", i), Score: 10 - float64(i)/2})
		vec = append(vec, Ranked{ID: fmt.Sprintf("v%d", i), Score: 0.9 - float64(i)/20})
	}
	// a memory both sides find, within the pool on the text side only
	text[1].ID, vec[9].ID = "both", "both"
	for _, f := range []memory.Fusion{memory.RRF, memory.RSF, memory.TextOnly, memory.VectorOnly} {
		q := memory.Query{K: 40, Pool: 4, Fusion: f}
		text, vec := text, vec // a side the fusion does not read is not searched
		if f == memory.TextOnly {
			vec = nil
		} else if f == memory.VectorOnly {
			text = nil
		}
		want := Fuse(q, text[:min(len(text), 4)], vec[:min(len(vec), 4)])
		got := Fuse(q, text, vec)
		if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			t.Errorf("%s: the pool fused %v, want %v", f, got[:min(len(got), len(want))], want)
			continue
		}
		for _, x := range got[len(want):] {
			if x.TextRank != 0 && x.TextRank <= 4 || x.VectorRank != 0 && x.VectorRank <= 4 || x.ID == "both" && text != nil {
				t.Errorf("%s: %+v appended, though the pool holds it", f, x)
			}
		}
		if f == memory.RRF && len(got) != len(want)+2*(12-4)-1 {
			t.Errorf("rrf: %d candidates, want the pool's %d and the 15 only the deeper lists hold", len(got), len(want))
		}
	}
	if d := (memory.Query{K: 10, Fusion: memory.Rerank, Periods: []memory.Period{{}}}).Depth(); d != memory.DefaultPool(10) {
		t.Errorf("rerank's depth %d, want its pool", d)
	}
}

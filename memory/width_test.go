package memory

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A character of Han, Hiragana, Katakana or Hangul is measured as a
// token, any other as a quarter of one.
func TestUnits(t *testing.T) {
	for s, want := range map[string]int{
		"": 0, "lake": 4, "café": 4, "Zoë, Kraków": 11,
		"東京": 8, "コーヒー": 16, "안녕": 8, "猫が好き。": 20, "（）": 8,
		"I like 東京 a lot": 7 + 8 + 6,
	} {
		if got := units(s); got != want {
			t.Errorf("units(%q) = %d, want %d", s, got, want)
		}
	}
}

// A long turn in a script written without spaces is shown as the part
// that matches the query, as an English one is: about the excerpt's
// tokens, its characters not parted by spaces. It was shown whole,
// whatever the excerpt's length or max_tokens, since it had no spaces.
func TestExcerptWithoutSpaces(t *testing.T) {
	filler := "今天天气很好，我们去公园散步，然后在咖啡馆喝了一杯咖啡。"
	text := strings.Repeat(filler, 30) + "我妹妹的猫叫小花，它非常可爱。" + strings.Repeat(filler, 30)
	want := queryWords("我妹妹的猫叫什么名字？")
	got := excerpt(text, want, 40, false)
	if got == "" {
		t.Fatalf("a turn of %d characters shown whole at an excerpt of 40 tokens", utf8.RuneCountInString(text))
	}
	if !strings.Contains(got, "我妹妹的猫叫小花") {
		t.Errorf("the excerpt misses the sentence that answers the query: %q", got)
	}
	if n := tokens(units(got)); n < 36 || n > 44 {
		t.Errorf("the excerpt is %d tokens, want about 40: %q", n, got)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(got, "… "), " …")
	if strings.Contains(inner, " ") {
		t.Errorf("spaces put between the characters: %q", got)
	}
	// a mixed text keeps its own spaces
	mixed := strings.Repeat("We walked in the park. ", 40) + "My sister's cat is called 小花 (Xiaohua). " + strings.Repeat("We walked in the park. ", 40)
	if got := excerpt(mixed, queryWords("what is my sister's cat called"), 20, false); !strings.Contains(got, "called 小花 (Xiaohua).") {
		t.Errorf("mixed text: %q", got)
	}
}

// A listing's preview of a text written without spaces is its first
// words, a character a word, not the whole text.
func TestPreviewWithoutSpaces(t *testing.T) {
	for text, want := range map[string]string{
		"我妹妹的猫叫小花，它非常可爱。今天天气很好。": "我妹妹的猫叫小花，它非常 …",
		"短い文": "短い文",
		"one two three four five six seven eight nine ten eleven twelve thirteen": "one two three four five six seven eight nine ten eleven twelve …",
		"I went to 東京 with Ana": "I went to 東京 with Ana",
	} {
		if got := Preview(text); got != want {
			t.Errorf("Preview(%q) = %q, want %q", text, got, want)
		}
	}
}

// Korean, written with spaces, is cut at its words, and its excerpt holds
// about the tokens asked for: a word of several syllables is several
// tokens, so the excerpt takes fewer words than of English (it was about
// three times too long).
func TestExcerptOfWideWords(t *testing.T) {
	filler := strings.Repeat("오늘은 날씨가 좋아서 공원에서 산책했습니다. ", 40)
	text := filler + "제 여동생의 고양이 이름은 소화입니다. " + filler
	for _, n := range []int{20, 40, 100} {
		got := excerpt(text, queryWords("여동생의 고양이 이름은?"), n, false)
		if !strings.Contains(got, "고양이 이름은 소화입니다.") {
			t.Errorf("n %d: the answer is not in the excerpt %q", n, got)
		}
		if m := tokens(units(got)); m < n*8/10 || m > n*11/10 {
			t.Errorf("n %d: the excerpt is %d tokens: %q", n, m, got)
		}
	}
}

// A reranker is sent about RerankQuery tokens of the query, cut at a
// word: 112 English words, or as many characters of Chinese as make the
// tokens (a Chinese prompt has no spaces, and was sent whole).
func TestFirstTokens(t *testing.T) {
	en := strings.Repeat("word ", 200)
	if got, cut := firstTokens(en, 150); !cut || len(strings.Fields(got)) != 112 {
		t.Errorf("English: cut %v, %d words, want 112", cut, len(strings.Fields(got)))
	}
	if got, cut := firstTokens("a short question", 150); cut || got != "a short question" {
		t.Errorf("a short query: %q, cut %v", got, cut)
	}
	zh := strings.Repeat("我妹妹的猫叫小花。", 100)
	got, cut := firstTokens(zh, 150)
	if !cut || units(got) > 4*150 || units(got) < 4*140 || strings.Contains(got, " ") {
		t.Errorf("Chinese: cut %v, %d tokens, %q", cut, tokens(units(got)), got)
	}
}

// A long word without spaces (Korean or Thai typed without them, a key, a
// long URL) is cut like text written without spaces: its excerpt and its
// preview keep to about their tokens (they were shown whole).
func TestLongWordsAreCut(t *testing.T) {
	key := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789+/", 85)
	text := "My API token backup is " + key + " keep it safe."
	got := excerpt(text, queryWords("API token backup"), 40, false)
	if got == "" || tokens(units(got)) > 60 || !strings.Contains(got, "API token backup") {
		t.Errorf("a %d-character key: excerpt of %d tokens: %q", len(key), tokens(units(got)), got)
	}
	ko := strings.Repeat("오늘은날씨가좋아서공원에서산책했습니다", 40) + "제여권은책상서랍에있습니다" + strings.Repeat("오늘은날씨가좋아서공원에서산책했습니다", 40)
	if got := excerpt(ko, queryWords("여권"), 40, false); got == "" || tokens(units(got)) > 60 {
		t.Errorf("Korean without spaces: excerpt of %d tokens: %q", tokens(units(got)), got)
	}
	for _, text := range []string{key, ko} {
		if p := Preview(text); units(p) > 4*previewTokens+8 || !strings.HasSuffix(p, " …") {
			t.Errorf("preview of %d units: %q", units(p), p)
		}
	}
}

// The commonest function characters of Chinese and every Hiragana
// character (Japanese's particles and endings) are not a query's words,
// as "the" is not: an excerpt then centres on what the query asks, not
// on filler that shares its 在 and 里 (a trial's "where is my passport"
// was cut before the place).
func TestFunctionCharacters(t *testing.T) {
	want := queryWords("护照在哪里？")
	if _, ok := want.index["护"]; !ok || len(want.index) != 2 {
		t.Errorf("query words %v, want 护 and 照", want.index)
	}
	filler := strings.Repeat("我的猫喜欢睡在窗台上晒太阳。哪里都不如家里舒服。", 30)
	text := filler + "其实我把护照藏在书房第三个抽屉的蓝色信封里。" + filler
	for n, place := range map[int]string{20: "护照藏在书房第三个抽屉", 60: "护照藏在书房第三个抽屉的蓝色信封里", 120: "护照藏在书房第三个抽屉的蓝色信封里"} {
		if got := excerpt(text, queryWords("护照在哪里"), n, false); !strings.Contains(got, place) {
			t.Errorf("excerpt of %d tokens misses the place: %q", n, got)
		}
	}
	if jp := queryWords("Wi-Fiのパスワードはどこ"); len(jp.index) != 6 {
		t.Errorf("Japanese query words %v, want wi-fi and パスワード's five characters", jp.index)
	}
}

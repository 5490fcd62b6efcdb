package kuis_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	names "github.com/kuisboard/kuis/internal/name"
)

// TestCleanParticipant: CleanParticipant returns the name the rule cleans
// (internal/name's tests hold the rule), or refuses with
// ErrInvalidParticipant, quoting the name as typed (cut at 64 bytes)
// before the rule's words.
func TestCleanParticipant(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want, wantErr string }{
		{"Ali", "Ali", ""},
		{"  Ａｌｉ\u00a0Baba", "Ali Baba", ""},
		{"Ali\u200b", "", `kuis: invalid participant: "Ali\u200b" holds a hidden, blank, line-breaking or direction-changing character (U+200B at character 4)`},
		{strings.Repeat("李", 65), "", `kuis: invalid participant: "` + strings.Repeat("李", 21) + `"… is longer than 64 characters`},
		{"列夫·托尔斯泰", "列夫·托尔斯泰", ""},
		{"\u00b7Ali", "", `kuis: invalid participant: "·Ali" holds "·" (U+00B7) at character 1, which goes only between two letters`},
		{"مـ", "", `kuis: invalid participant: "مـ" holds the Arabic tatweel (U+0640) at character 2, which goes only within an Arabic word`},
		{"田中 Taro", "田中 Taro", ""},
		{"Ali علي", "", `kuis: invalid participant: "Ali علي" mixes letters of two scripts (Latin "A" at character 1, Arabic "ع" at character 5)`},
	} {
		got, err := kuis.CleanParticipant(tt.in)
		if tt.wantErr == "" && (err != nil || got != tt.want) {
			t.Errorf("CleanParticipant(%+q) = %+q, %v; want %+q", tt.in, got, err, tt.want)
		}
		if tt.wantErr != "" && (got != "" || !errors.Is(err, kuis.ErrInvalidParticipant) || err.Error() != tt.wantErr) {
			t.Errorf("CleanParticipant(%+q) = %+q, %v; want %s", tt.in, got, err, tt.wantErr)
		}
	}
}

// classNames are names of real classes, each as a student types it and as
// CleanParticipant returns it.
var classNames = []struct{ what, name string }{
	{"Latin with diacritics", "Nguyễn Thị Lan"},
	{"Latin with diacritics", "José Álvarez"},
	{"Latin with diacritics", "Zoë Ødegård"},
	{"Latin with diacritics", "Łukasz Wójcik"},
	{"Latin with diacritics", "Çağla Şahin"},
	{"Latin with punctuation", "O'Brien-Smith, Jr."},
	{"Catalan middle dot", "Gal·la"},
	{"Cyrillic", "Анна Петрова"},
	{"Cyrillic", "Ђорђе Јовановић"},
	{"Greek", "Αλέξανδρος Παπαδόπουλος"},
	{"Arabic", "محمد علي"},
	{"Arabic with harakat", "\u0645\u064f\u062d\u064e\u0645\u064e\u0651\u062f"},
	{"Persian with ZWNJ", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645"},
	{"Persian with ZWNJ", "علی\u200cرضا"},
	{"Hebrew", "דוד כהן"},
	{"Hebrew with geresh", "ג׳ורג׳"},
	{"Devanagari", "अर्जुन शर्मा"},
	{"Devanagari, ZWJ after a virama", "अक्\u200dषय"},
	{"Devanagari, ZWNJ after a virama", "अक्\u200cषय"},
	{"Thai", "สมชาย ใจดี"},
	{"Chinese", "王小明"},
	{"Chinese", "李雷"},
	{"Japanese, kanji with hiragana", "山田 はなこ"},
	{"Japanese, kanji with katakana", "佐藤タロウ"},
	{"Japanese, kanji, hiragana and katakana", "田中ゆう子・アン"},
	{"Korean", "김민준"},
	{"Korean with hanja", "金민준"},
	{"digits", "Ali 2"},
	{"emoji", "Dewi 🎉"},
	{"emoji with a skin tone", "👍🏽 Budi"},
	{"profession with a skin tone", "👩🏾\u200d🎓 Siti"},
	{"profession", "👩\u200d🎓"},
	{"family", "👨\u200d👩\u200d👧 Keluarga"},
	{"couple with skin tones", "🧑🏻\u200d❤\ufe0f\u200d💋\u200d🧑🏼"},
	{"rainbow flag", "🏳\ufe0f\u200d🌈 Rani"},
	{"regional-indicator flag", "🇮🇩 Agus"},
	{"England's flag", "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f Harry"},
	{"emoji shown as text by default, with U+FE0F", "❤\ufe0f Ayu"},
	{"keycap", "1\ufe0f\u20e3 Budi"},
	{"emoji sequence of text emoji", "👁\ufe0f\u200d🗨\ufe0f"},
	{"black cat", "🐈\u200d⬛"},
	{"emoji only, 64 of them", strings.Repeat("🎓", 64)},
	{"Han only, 64 of them", strings.Repeat("李", 64)},
}

// worldNames are real names of the world, each as a student types it and
// as CleanParticipant returns it: the names its rule passes beyond the PRECIS
// Nickname profile (U+00B7 between letters, U+0640 within an Arabic word,
// Latin with Han and kana, Bopomofo or Hangul), Indonesian single names
// (some of which look alike in some fonts: Ami and Arni), and names with
// apostrophes and hyphens, in many scripts.
var worldNames = []struct{ what, name string }{
	{"Chinese transliteration with U+00B7", "列夫·托尔斯泰"},
	{"Chinese transliteration with U+00B7", "阿加莎·克里斯蒂"},
	{"Chinese transliteration with U+00B7", "艾萨克·牛顿"},
	{"Chinese transliteration with U+00B7", "玛丽·居里"},
	{"Uyghur name in Chinese, with U+00B7", "买买提·艾力"},
	{"Uyghur name in Chinese, with U+00B7", "迪丽热巴·迪力木拉提"},
	{"Japanese, kanji with Latin", "田中Taro"},
	{"Japanese, kanji with Latin", "鈴木 Emma"},
	{"Japanese, Latin, kanji and hiragana", "Kenji 渡辺 けんじ"},
	{"Japanese, kanji and katakana with Latin", "山本アンナ Anna"},
	{"Korean, Hangul with Latin", "Jisoo 김"},
	{"Korean, hanja and Hangul with Latin", "金민준 Kim"},
	{"Chinese, Han with Bopomofo and Latin", "林ㄌㄧㄣˊ Lin"},
	{"Arabic with a tatweel", "محـمد"},
	{"Arabic with a tatweel", "عـلي"},
	{"Arabic with a tatweel and harakat", "مُحَـمَّد"},
	{"Arabic with tatweels", "فاطـــمة الزهراء"},
	{"Persian with a tatweel", "مهـدی"},
	{"Indonesian single name", "Sukarno"},
	{"Indonesian single name", "Suharto"},
	{"Indonesian single name", "Ami"},
	{"Indonesian single name", "Arni"},
	{"Indonesian single name", "Erni"},
	{"Indonesian single name", "Rina"},
	{"Indonesian single name", "Rima"},
	{"Indonesian single name", "Wiranto"},
	{"Irish, apostrophe", "Siobhán O'Connor"},
	{"French, right single quotation mark", "N’Golo Kanté"},
	{"Italian, apostrophe", "D'Angelo"},
	{"Kikuyu, apostrophe", "Ngũgĩ wa Thiong'o"},
	{"Hawaiian ʻokina", "Kealiʻi"},
	{"Uzbek, U+02BB", "Oʻtkir Hoshimov"},
	{"Ukrainian, apostrophe", "В'ячеслав"},
	{"Ukrainian, right single quotation mark", "Мар’яна"},
	{"French, hyphen", "Jean-Luc"},
	{"English, hyphen U+2010", "Anne‐Marie"},
	{"Hebrew, maqaf", "דוד בן־גוריון"},
	{"Russian", "Дмитрий Шостакович"},
	{"Ukrainian", "Олена Зеленська"},
	{"Kazakh", "Ғалымжан Мұхтар"},
	{"Greek", "Νίκος Καζαντζάκης"},
	{"Greek", "Ελένη"},
	{"Hindi", "प्रियंका चोपड़ा"},
	{"Marathi", "श्रेया"},
	{"Thai", "ทักษิณ ชินวัตร"},
	{"Thai with แ", "แสงเดือน"},
	{"Korean", "이지은"},
	{"Korean", "박서준"},
	{"Vietnamese", "Nguyễn Văn An"},
	{"Turkish", "Işıl Aydın"},
	{"Tamil", "ஊர்மிளா"},
	{"Bengali", "রবীন্দ্রনাথ ঠাকুর"},
	{"Georgian", "ნინო"},
	{"Armenian", "Արամ Խաչատրյան"},
	{"Amharic", "አበበ ቢቂላ"},
	{"Yoruba", "Ọlátúnjí"},
	{"Khmer", "សុខា"},
	{"Catalan, l·l", "Marcel·lí"},
}

// TestWorldNames: every real name of worldNames is clean as typed, and no
// two have one key (internal/name's Key, under which a class compares
// names): real names stay two students, Ami and Arni among them.
func TestWorldNames(t *testing.T) {
	t.Parallel()
	keys := make(map[string]string)
	for _, c := range worldNames {
		if got, err := kuis.CleanParticipant(c.name); err != nil || got != c.name {
			t.Errorf("%s: CleanParticipant(%+q) = %+q, %v; want the name as typed", c.what, c.name, got, err)
		}
		key := names.Key(c.name)
		if other, ok := keys[key]; ok {
			t.Errorf("%s: %+q has the key of %+q: %+q", c.what, c.name, other, key)
		}
		keys[key] = c.name
	}
}

// TestClassNamesStay: the names of real classes, in every script a class
// writes and with emoji, and the real names of the world, are clean as
// typed, and every method takes them and reads them back byte for byte.
func TestClassNamesStay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, _, b := e.running(1)
	for _, c := range slices.Concat(classNames, worldNames) {
		if got, err := kuis.CleanParticipant(c.name); err != nil || got != c.name {
			t.Errorf("%s: CleanParticipant(%+q) = %+q, %v; want the name as typed", c.what, c.name, got, err)
			continue
		}
		if a, err := b.RecordAnswer(e.ctx, c.name, 1); err != nil || a != (kuis.Answer{Score: 10}) {
			t.Errorf("%s: RecordAnswer(%+q) = %+v, %v; want {Score: 10}", c.what, c.name, a, err)
		}
		if s, err := b.Standing(e.ctx, c.name); err != nil || s.Participant != c.name {
			t.Errorf("%s: Standing(%+q) = %+v, %v; want the name back", c.what, c.name, s, err)
		}
	}
}

// TestNamesAreNeverCleanedSilently: every method that takes a participant
// refuses a name CleanParticipant would change or refuses, with nothing
// written, and says so ("Ａｌｉ" is not clean: CleanParticipant maps it to
// "Ali"); names are compared byte for byte; members written outside the
// library, whatever they hold, still read back through Standings and Page,
// and Audit names each that breaks the rule.
func TestNamesAreNeverCleanedSilently(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _, b := e.running(3)
	k := e.keys(id)
	for _, name := range []string{"Ali ", "Jose\u0301", "\u202eilA", "Ali\u200b", "Ａｌｉ", "Ali\u00a0Baba", "Ali  Baba",
		"\u0410li", "Ali\ufe0f", "\u3164", "😀\ufe0f"} {
		before := e.dump(fiveKeys(k)...)
		if _, err := b.RecordAnswer(e.ctx, name, 1); !errors.Is(err, kuis.ErrInvalidParticipant) {
			t.Errorf("RecordAnswer(%+q) = %v; want ErrInvalidParticipant", name, err)
		}
		if _, err := b.Standing(e.ctx, name); !errors.Is(err, kuis.ErrInvalidParticipant) {
			t.Errorf("Standing(%+q) = %v; want ErrInvalidParticipant", name, err)
		}
		if diff := cmp.Diff(before, e.dump(fiveKeys(k)...)); diff != "" {
			t.Errorf("a refused %+q wrote (-before +after):\n%s", name, diff)
		}
	}
	_, err := b.RecordAnswer(e.ctx, "Ａｌｉ", 1)
	if want := `participant "Ａｌｉ" is not clean (CleanParticipant maps it to "Ali")`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("RecordAnswer(Ａｌｉ) = %v; want it to end %s", err, want)
	}
	for _, name := range []string{"ali", "Ali"} {
		if a, err := b.RecordAnswer(e.ctx, name, 1); err != nil || a.Duplicate {
			t.Errorf("RecordAnswer(%q) = %+v, %v; want a counted answer: two students", name, a, err)
		}
	}
	e.mustRaw("ZADD", k.Board(), "20", "Ali ", "30", "\u202eilA", "40", "Ａｌｉ")
	want := []string{"Ａｌｉ", "\u202eilA", "Ali ", "ali", "Ali"}
	for _, read := range []func() ([]kuis.Standing, error){
		func() ([]kuis.Standing, error) { return b.Standings(e.ctx) },
		func() ([]kuis.Standing, error) { return b.Page(e.ctx, 0, 10) },
	} {
		s, err := read()
		var got []string
		for _, x := range s {
			got = append(got, x.Participant)
		}
		if diff := cmp.Diff(want, got); err != nil || diff != "" {
			t.Errorf("read: %v (-want +got):\n%s", err, diff)
		}
	}
	v, err := e.store.Audit(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range v {
		if x.Rule == "member" {
			got = append(got, x.Detail)
		}
	}
	slices.Sort(got)
	wantMembers := []string{
		`participant "Ali " has white space around it (CleanParticipant trims it)`,
		`participant "\u202eilA" holds a hidden, blank, line-breaking or direction-changing character (U+202E at character 1)`,
		`participant "Ａｌｉ" is not clean (CleanParticipant maps it to "Ali")`,
	}
	slices.Sort(wantMembers)
	if diff := cmp.Diff(wantMembers, got); diff != "" {
		t.Errorf("Audit's member violations (-want +got):\n%s", diff)
	}
}

// BenchmarkCleanParticipant: the cost of CleanParticipant by kind of name.
// For a clean name it does exactly the check every method that takes a
// participant makes (RecordAnswer's among them); "fullwidth" is a name
// cleaning maps.
func BenchmarkCleanParticipant(b *testing.B) {
	for _, c := range []struct{ what, name string }{
		{"ascii", "Siti Aminah"},
		{"latin", "Nguyễn Thị Lan"},
		{"han", "王小明"},
		{"japanese", "田中ゆう子"},
		{"arabic", "محمد علي"},
		{"emoji-zwj", "👩🏾\u200d🎓 Siti"},
		{"fullwidth", "Ｓｉｔｉ"},
	} {
		b.Run(c.what, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kuis.CleanParticipant(c.name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

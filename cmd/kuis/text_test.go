package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
)

// hostile are names (and, after "Kuis ", titles) that only raw commands can
// store: what each holds raw, how the text output shows it, and what a JSON
// decoder reads back (the raw name, but for bytes that are not UTF-8, which
// encoding/json makes U+FFFD).
var hostile = []struct {
	name, raw, shown, json string
}{
	{"ESC", "Ali\x1b[31m", `Ali\x1b[31m`, ""},
	{"OSC 8 hyperlink", "\x1b]8;;http://x\x07Budi", `\x1b]8;;http://x\aBudi`, ""},
	{"OSC title", "\x1b]0;title\x1b\\Citra", `\x1b]0;title\x1b\\Citra`, ""},
	{"CR", "Dewi\rEka", `Dewi\rEka`, ""},
	{"LF forging a row", "Fajar\nkuis-99  selesai  3  1  1  forged", `Fajar\nkuis-99  selesai  3  1  1  forged`, ""},
	{"RLO", "\u202eGita", `\u202eGita`, ""},
	{"line separator", "Hana\u2028Iwan", `Hana\u2028Iwan`, ""},
	{"NUL", "Joko\x00", `Joko\x00`, ""},
	{"not UTF-8", "Kiki\xff", `Kiki\xff`, "Kiki\uFFFD"},
	{"tab", "Lia\tMuri", `Lia\tMuri`, ""},
	{"C1 CSI and DEL", "Nadia\u009b31m\x7f", `Nadia\u009b31m\x7f`, ""},
	{"a backslash like an escape", `Oki\x1b`, `Oki\\x1b`, ""},
	{"printable: any script, emoji", "Søren 🎉 👩‍💻 李 عمر", "Søren 🎉 👩‍💻 李 عمر", ""},
}

// rawHidden is the first character in out that a terminal acts on, or that
// reorders or breaks a line (a tab counts only unless tabs is set), or a
// byte that is not UTF-8: "" when there is none. It is written apart from
// the command's own test of these, which it checks.
func rawHidden(out string, tabs bool) string {
	for i, r := range out {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD"):
			return out[i : i+1]
		case r == '\n', r == '\t' && tabs:
		case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x061c, r == 0x200e, r == 0x200f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
			return string(r)
		}
	}
	return ""
}

// TestVisible escapes what a terminal acts on in Go's strconv style, a
// backslash with it, and keeps every other character as it is;
// visibleWords keeps backslashes, which a Go-quoted message holds already.
func TestVisible(t *testing.T) {
	for _, tt := range hostile {
		if got := visible(tt.raw); got != tt.shown {
			t.Errorf("visible(%q) = %q, want %q", tt.raw, got, tt.shown)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{`participant "Ali\x1b" is not a name`, `participant "Ali\x1b" is not a name`},
		{"course \x1b]0;x\x07: \\ stays", `course \x1b]0;x\a: \ stays`},
		{"two\nlines\u202e\xff", `two\nlines\u202e\xff`},
	} {
		if got := visibleWords(tt.in); got != tt.want {
			t.Errorf("visibleWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzVisible: what visible prints holds nothing raw that a terminal acts
// on, and reads back as Go reads a quoted string to exactly what it was
// given, so no two names print alike.
func FuzzVisible(f *testing.F) {
	for _, tt := range hostile {
		f.Add(tt.raw)
	}
	f.Add(`\\"\u0085`)
	f.Fuzz(func(t *testing.T, s string) {
		out := visible(s)
		if c := rawHidden(out, false); c != "" {
			t.Fatalf("visible(%q) = %q holds %q raw", s, out, c)
		}
		// A quote is never part of an escape of visible's: quoted, out is a Go string literal.
		back, err := strconv.Unquote(`"` + strings.ReplaceAll(out, `"`, `\"`) + `"`)
		if err != nil || back != s {
			t.Fatalf("visible(%q) = %q reads back as %q (%v)", s, out, back, err)
		}
	})
}

// TestVisibleJSON: a JSON document with raw DEL, C1 and bidi controls
// decodes, with them \u-escaped, to the same strings.
func TestVisibleJSON(t *testing.T) {
	for _, tt := range hostile {
		b, err := json.Marshal(map[string]string{"name": tt.raw})
		if err != nil {
			t.Fatal(err)
		}
		out := visibleJSON(b)
		if c := rawHidden(string(out), false); c != "" {
			t.Errorf("%s: visibleJSON gives %q, holding %q raw", tt.name, out, c)
		}
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil || got["name"] != jsonForm(tt.raw, tt.json) {
			t.Errorf("%s: %q decodes to %q (%v), want %q", tt.name, out, got["name"], err, jsonForm(tt.raw, tt.json))
		}
	}
}

// jsonForm is what a JSON decoder reads of raw: decoded when given, else raw.
func jsonForm(raw, decoded string) string {
	if decoded != "" {
		return decoded
	}
	return raw
}

// TestHostileData: each command that prints a participant's name, a quiz's
// title, a team, or a course's ledger prints a name or title only raw
// commands could store with its controls escaped, on the lines it would have
// anyway, tables aligned; its CSV keeps the exact bytes and its JSON
// decodes to them.
func TestHostileData(t *testing.T) {
	for _, tt := range hostile {
		t.Run(tt.name, func(t *testing.T) {
			tg := newTarget(t)
			tg.quiz("kuis-01", "Kuis", 3, [][]string{{"Tono"}}, true)
			tg.quiz("kuis-02", "Kuis", 3, [][]string{{"Tono"}}, true)
			r, err := tg.store.Recap(tg.ctx, "kuis-01")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tg.course("ipa").Fold(tg.ctx, r); err != nil {
				t.Fatal(err)
			}
			k := tg.keys("kuis-01")
			tg.raw("HSET", k.Meta(), "judul", "Kuis "+tt.raw)
			tg.raw("ZADD", k.Board(), "20", tt.raw)
			tg.raw("ZADD", tg.course("ipa").Keys().Board(), "20", tt.raw)
			title, name := "Kuis "+tt.shown, tt.shown
			decoded := jsonForm(tt.raw, tt.json)

			// text: want is each line, exactly; board the lines of a table whose
			// last column (the score) starts at one place.
			for _, c := range []struct {
				args  []string
				code  int
				want  []string
				board []int
			}{
				{[]string{"quizzes"}, 0, []string{"kuis-01  selesai  3  2  1  " + title, "kuis-02  selesai  3  1  1  Kuis"}, nil},
				{[]string{"show", "kuis-01"}, 0, nil, []int{2, 3}},
				{[]string{"course", "show", "ipa"}, 0, nil, []int{1, 2}},
			} {
				res := tg.kuis(c.args...)
				if res.code != c.code || res.stderr != "" {
					t.Errorf("%v: exit %d, stderr %q", c.args, res.code, res.stderr)
				}
				if ch := rawHidden(res.stdout, false); ch != "" {
					t.Errorf("%v prints %q raw: %q", c.args, ch, res.stdout)
				}
				if c.want != nil {
					if diff := cmp.Diff(c.want, lines(res.stdout)); diff != "" {
						t.Errorf("%v (-want +got):\n%s", c.args, diff)
					}
					continue
				}
				ls := lines(res.stdout)
				if len(ls) != c.board[1]+1 {
					t.Errorf("%v: %d lines, want %d: %q", c.args, len(ls), c.board[1]+1, res.stdout)
					continue
				}
				rows := ls[c.board[0]:]
				if rows[0] != "1  "+name+"  20" || !strings.HasPrefix(rows[1], "2  Tono") {
					t.Errorf("%v: board %q, want %q first, then Tono", c.args, rows, "1  "+name+"  20")
				}
				score := func(l string) int { return utf8.RuneCountInString(l[:strings.LastIndexByte(l, ' ')]) }
				if score(rows[0]) != score(rows[1]) {
					t.Errorf("%v: the scores' column is not aligned:\n%s", c.args, strings.Join(rows, "\n"))
				}
			}
			if got := lines(tg.must("show", "kuis-01"))[0]; got != "kuis-01: "+title {
				t.Errorf("show's first line %q, want %q", got, "kuis-01: "+title)
			}

			w := tg.startWatch("watch", "kuis-01")
			if code := w.exit(t); code != 0 || w.out.String() != name+"\t20\nTono\t10\n\n" {
				t.Errorf("watch of the finished quiz: exit %d, stdout %q, want %q", code, w.out.String(), name+"\t20\nTono\t10\n\n")
			}

			// audit and course audit: the library's findings, Go-quoted, one a line.
			for _, args := range [][]string{{"audit", "kuis-01"}, {"course", "audit", "ipa"}} {
				what := strings.Join(args, " ")
				res := tg.kuis(args...)
				if res.code != 1 || rawHidden(res.stdout+res.stderr, false) != "" {
					t.Errorf("%v: exit %d, stdout %q, stderr %q: want 1, nothing raw", args, res.code, res.stdout, res.stderr)
				}
				for _, l := range lines(res.stdout) {
					if !strings.HasPrefix(l, tg.ns+":") {
						t.Errorf("%v: line %q is not a finding (key: rule: detail)", args, l)
					}
				}
				if !strings.Contains(res.stdout, strconv.Quote(tt.raw)) {
					t.Errorf("%v: no finding names %s:\n%s", args, strconv.Quote(tt.raw), res.stdout)
				}
				summary := map[string]string{"audit kuis-01": "kuis: audit: ", "course audit ipa": "kuis: course audit ipa: "}[what]
				oneLine(t, what, res.stderr, summary, "violation(s)")
			}

			// teams: a team name the library refuses is a usage error that quotes it.
			var row strings.Builder
			cw := csv.NewWriter(&row)
			if err := cw.Write([]string{tt.raw, "Tono"}); err != nil {
				t.Fatal(err)
			}
			cw.Flush()
			res := tg.kuis("teams", "kuis-01", "-roster", rosterFile(t, row.String()))
			switch {
			case rawHidden(res.stdout+res.stderr, false) != "":
				t.Errorf("teams: stdout %q, stderr %q: a character raw", res.stdout, res.stderr)
			case res.code == 0 && !cmp.Equal(lines(res.stdout), []string{"1  " + name + "  1  10  10.00"}):
				t.Errorf("teams: stdout %q", res.stdout)
			case res.code == 2:
				oneLine(t, "teams", res.stderr, "kuis teams", "team name ")
			case res.code != 0:
				t.Errorf("teams: exit %d, stderr %q", res.code, res.stderr)
			}

			// CSV: the exact bytes; JSON: what the decoder reads of them. A recap
			// refuses a name that is not UTF-8, which no archive keeps.
			refused := !utf8.ValidString(tt.raw)
			for _, c := range []struct {
				args      []string
				row, cell int    // where the name is
				failure   string // the start of the error line of a recap refused
			}{
				{[]string{"recap", "kuis-01", "-format", "standings"}, 1, 2, "kuis: recap kuis-01: "},
				{[]string{"recap", "kuis-01", "-format", "gradebook"}, 1, 0, "kuis: recap kuis-01: "},
				{[]string{"recap", "kuis-01", "-format", "gradebook", "-delimiter", ";"}, 1, 0, "kuis: recap kuis-01: "},
				{[]string{"course", "recap", "ipa"}, 1, 2, "kuis: course recap ipa: "},
				{[]string{"recap", "kuis-01", "-format", "json"}, 0, 0, "kuis: recap kuis-01: "},
			} {
				if refused {
					res := tg.kuis(c.args...)
					if res.code != 1 || res.stdout != "" {
						t.Errorf("%v: exit %d, stdout %q; want 1 and nothing", c.args, res.code, res.stdout)
					}
					oneLine(t, strings.Join(c.args, " "), res.stderr, c.failure, strconv.Quote(tt.raw))
					continue
				}
				if c.args[len(c.args)-1] == "json" {
					var recap kuis.Recap
					decodeJSON(t, tg, &recap, c.args...)
					if recap.Info.Title != "Kuis "+decoded || len(recap.Standings) != 2 || recap.Standings[0].Participant != decoded {
						t.Errorf("%v: title %q, standings %+v, want %q first", c.args, recap.Info.Title, recap.Standings, decoded)
					}
					continue
				}
				rd := csv.NewReader(strings.NewReader(tg.must(c.args...)))
				rd.FieldsPerRecord = -1
				if c.args[len(c.args)-2] == "-delimiter" {
					rd.Comma = ';'
				}
				rows, err := rd.ReadAll()
				if err != nil || len(rows) != 3 || rows[c.row][c.cell] != tt.raw {
					t.Errorf("%v: %q (%v), want row %d's cell %d %q", c.args, rows, err, c.row, c.cell, tt.raw)
				}
			}
			var show showResult
			decodeJSON(t, tg, &show, "show", "kuis-01", "-json")
			if show.Title != "Kuis "+decoded || len(show.Standings) != 2 || show.Standings[0].Participant != decoded {
				t.Errorf("show -json: %+v, want title %q, %q first", show, "Kuis "+decoded, decoded)
			}
			var quizzes []quizLine
			decodeJSON(t, tg, &quizzes, "quizzes", "-json")
			if len(quizzes) != 2 || quizzes[0].Title != "Kuis "+decoded {
				t.Errorf("quizzes -json: %+v, want kuis-01's title %q", quizzes, "Kuis "+decoded)
			}
			var course courseShow
			decodeJSON(t, tg, &course, "course", "show", "ipa", "-json")
			if len(course.Standings) != 2 || course.Standings[0].Participant != decoded {
				t.Errorf("course show -json: %+v, want %q first", course.Standings, decoded)
			}

			// repair and course repair: the correction names the participant.
			for _, c := range []struct{ args, want []string }{
				{[]string{"repair", "kuis-01"}, []string{"kuis-01: " + name + ": 20 -> 0"}},
				{[]string{"course", "repair", "ipa"}, []string{"ipa: " + name + ": 20 -> 0"}},
			} {
				if diff := cmp.Diff(c.want, lines(tg.must(c.args...))); diff != "" {
					t.Errorf("%v (-want +got):\n%s", c.args, diff)
				}
			}

			// errors: a quiz ID from an archive, a course from a quiz's meta.
			archived := filepath.Join(t.TempDir(), "recap.json")
			b, err := json.Marshal(kuis.Recap{QuizID: tt.raw, Info: kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusFinished}})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(archived, b, 0o600); err != nil {
				t.Fatal(err)
			}
			res = tg.kuis("course", "fold", "ipa", "-from-archive", archived)
			if res.code != 1 || res.stdout != "" || rawHidden(res.stderr, false) != "" {
				t.Errorf("course fold of an archive's quiz ID: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
			}
			oneLine(t, "course fold of an archive's quiz ID", res.stderr, "kuis: course fold ipa ", "invalid quiz ID")

			tg.raw("HSET", tg.keys("kuis-02").Meta(), "kursus", tt.raw)
			res = tg.kuis("purge", "kuis-02", "-archive", t.TempDir(), "-course", "ipa")
			if res.code != 1 || res.stdout != "" || rawHidden(res.stderr, false) != "" {
				t.Errorf("purge into another course: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
			}
			oneLine(t, "purge into another course", res.stderr, "kuis: purge kuis-02: ", "belongs to course "+name+", not to ipa")
		})
	}
}

// decodeJSON runs kuis, which must print one JSON document with nothing a
// terminal acts on raw, and decodes it into v.
func decodeJSON(t *testing.T, tg *target, v any, args ...string) {
	t.Helper()
	out := tg.must(args...)
	if c := rawHidden(out, false); c != "" {
		t.Errorf("%v prints %q raw: %q", args, c, out)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: %v: %q", args, err, out)
	}
}

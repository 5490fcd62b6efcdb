package wire_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis/internal/redistest"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// prelude is the Lua codec every script is run with.
func prelude(t testing.TB) string {
	t.Helper()
	src, err := os.ReadFile("../script/prelude.lua")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// TestLuaConstants: the prelude's bounds and the log's field names are Go's.
func TestLuaConstants(t *testing.T) {
	src := prelude(t)
	for name, want := range map[string]int64{
		"maxScore": wire.MaxScore, "unit": wire.PlaceUnit, "maxCount": wire.MaxPlaceCount,
		"maxQuestions": wire.MaxQuestions, "maxName": wire.MaxName,
	} {
		m := regexp.MustCompile(`(?m)^local ` + name + ` = (\d+)$`).FindStringSubmatch(src)
		if m == nil {
			t.Errorf("prelude.lua defines no %s", name)
			continue
		}
		if got, _ := strconv.ParseInt(m[1], 10, 64); got != want {
			t.Errorf("prelude.lua's %s = %d, Go's = %d", name, got, want)
		}
	}
	for name, want := range map[string]string{
		"logParticipant": wire.LogParticipant, "logQuestion": wire.LogQuestion, "logScore": wire.LogScore,
		"logStatus": wire.LogStatus, "joinScore": wire.JoinScore,
	} {
		m := regexp.MustCompile(`(?m)^local ` + name + ` = '([^']*)'$`).FindStringSubmatch(src)
		if m == nil {
			t.Errorf("prelude.lua defines no %s", name)
			continue
		}
		if m[1] != want {
			t.Errorf("prelude.lua's %s = %q, Go's = %q", name, m[1], want)
		}
	}
}

// luaCodec runs the prelude's codec functions on a server of the tests'
// target, one EVAL per batch of inputs.
type luaCodec struct {
	t      testing.TB
	client rueidis.Client
	src    string
}

// The chunk after the prelude: ARGV[1] names the function, ARGV[2] is n,
// each further ARGV one input; the reply is one string per input ("" for
// nil or false).
const codecCalls = `
local fn, n, out = ARGV[1], tonumber(ARGV[2]), {}
local function show(...)
  local parts = {}
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    if v == nil or v == false then
      return ''
    end
    if type(v) == 'number' then
      v = whole(v)
    end
    parts[#parts + 1] = tostring(v)
  end
  return table.concat(parts, '|')
end
for i = 3, #ARGV do
  local x = ARGV[i]
  if fn == 'questions' then
    out[#out + 1] = show(questions(x))
  elseif fn == 'pairOf' then
    out[#out + 1] = show(pairOf(x, n))
  elseif fn == 'storedName' then
    out[#out + 1] = show(storedName(x))
  elseif fn == 'answerOf' then
    local f = {}
    for part in string.gmatch(x, '[^;]+') do
      local k, v = string.match(part, '^([^=]*)=(.*)$')
      f[#f + 1] = k
      f[#f + 1] = v
    end
    out[#out + 1] = show(answerOf({'1-1', f}, n))
  elseif fn == 'joinOf' then
    local f = {}
    for part in string.gmatch(x, '[^;]+') do
      local k, v = string.match(part, '^([^=]*)=(.*)$')
      f[#f + 1] = k
      f[#f + 1] = v
    end
    out[#out + 1] = show(joinOf({'1-1', f}))
  elseif fn == 'place' then
    local c, ms = string.match(x, '^(-?%d+),(-?%d+)$')
    out[#out + 1] = show(place(tonumber(c), tonumber(ms)))
  elseif fn == 'agrees' then
    local p, s = string.match(x, '^([^,]*),(.*)$')
    out[#out + 1] = show(agrees(p, s))
  elseif fn == 'ledgerPoints' then
    out[#out + 1] = show(ledgerPoints(x))
  elseif fn == 'markerOf' then
    local m = markerOf(x)
    if m then
      out[#out + 1] = show(m.possible, m.participants, m.points, m.digest, m.folded) .. '|' .. markerString(m)
    else
      out[#out + 1] = ''
    end
  elseif fn == 'timeOf' then
    out[#out + 1] = show(timeOf(x))
  end
end
return out
`

func newLuaCodec(t testing.TB) *luaCodec {
	return &luaCodec{t: t, client: redistest.Client(t), src: prelude(t) + codecCalls}
}

// call runs fn of the prelude on each input, for a quiz of n questions.
func (l *luaCodec) call(fn string, n int, inputs ...string) []string {
	l.t.Helper()
	args := append([]string{fn, strconv.Itoa(n)}, inputs...)
	out, err := l.client.Do(context.Background(), l.client.B().Eval().Script(l.src).Numkeys(0).Arg(args...).Build()).AsStrSlice()
	if err != nil {
		l.t.Fatalf("%s in Lua: %v", fn, err)
	}
	return out
}

// show is Lua's show of Go's results.
func show(ok bool, parts ...any) string {
	if !ok {
		return ""
	}
	s := make([]string, len(parts))
	for i, p := range parts {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, "|")
}

// TestLuaCodecIsGos: the prelude's codec and Go's decide alike on the same
// stored bytes: jumlah_soal, answers set members, stored names, log entries
// (answers and joins), places and their agreement with scores, and the time
// a place holds.
func TestLuaCodecIsGos(t *testing.T) {
	lua := newLuaCodec(t)
	numbers := []string{"1", "3", "4", "0", "04", "+3", "-1", " 3", "3 ", "1e2", "1000", "1001", "2048", "999999999999999",
		"", "\u0663", "3.0", "0x3"}
	names := []string{"Ali", "Ali Baba", "12:34", "", "Ali\n", "Ali\x7f", "Ali\u0085", "Jos\u00e9", "Ali\xff", "\xc0\xaf",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "李", "👩\u200d🎓", "\xe2\x82", strings.Repeat("é", 128), strings.Repeat("é", 129)}
	var members, entries []string
	for _, q := range numbers {
		for _, p := range names[:8] {
			members = append(members, q+":"+p)
			entries = append(entries, "peserta="+p+";soal="+q+";skor=10")
		}
	}
	members = append(members, "Ali", ":Ali", "3:")
	entries = append(entries, "soal=1", "peserta=Ali", "status=selesai", "peserta=Ali;soal=2;skor=10;extra=x")

	t.Run("questions", func(t *testing.T) {
		var want []string
		for _, s := range numbers {
			n, ok := wire.Questions(s)
			want = append(want, show(ok, n))
		}
		if diff := cmp.Diff(want, lua.call("questions", 0, numbers...)); diff != "" {
			t.Errorf("jumlah_soal, Go (-) and Lua (+):\n%s", diff)
		}
	})
	t.Run("storedName", func(t *testing.T) {
		var want []string
		for _, s := range names {
			want = append(want, show(wire.StoredName(s), true))
		}
		if diff := cmp.Diff(want, lua.call("storedName", 0, names...)); diff != "" {
			t.Errorf("stored names, Go (-) and Lua (+):\n%s", diff)
		}
	})
	for _, n := range []int{3, 1000} {
		t.Run(fmt.Sprintf("pairs of %d questions", n), func(t *testing.T) {
			var want []string
			for _, m := range members {
				q, p, ok := wire.ParsePair(m, n)
				want = append(want, show(ok, q, p))
			}
			if diff := cmp.Diff(want, lua.call("pairOf", n, members...)); diff != "" {
				t.Errorf("answers set members, Go (-) and Lua (+):\n%s", diff)
			}
		})
		t.Run(fmt.Sprintf("entries of %d questions", n), func(t *testing.T) {
			var want []string
			for _, e := range entries {
				fields := map[string]string{}
				for _, part := range strings.Split(e, ";") {
					k, v, _ := strings.Cut(part, "=")
					fields[k] = v
				}
				got, err := wire.DecodeEntry("1-1", fields, n)
				want = append(want, show(err == nil && got.Kind == wire.Answer, got.Participant, got.Question))
			}
			if diff := cmp.Diff(want, lua.call("answerOf", n, entries...)); diff != "" {
				t.Errorf("log entries, Go (-) and Lua (+):\n%s", diff)
			}
		})
	}
	t.Run("joins", func(t *testing.T) {
		joins := []string{"peserta=Ali;skor=0", "skor=0;peserta=Ali", "peserta=Ali Baba;skor=0", "peserta=李;skor=0",
			"peserta=;skor=0", "peserta=Ali\n;skor=0", "peserta=Ali\xff;skor=0", "peserta=" + strings.Repeat("é", 129) + ";skor=0",
			"peserta=Ali;skor=00", "peserta=Ali;skor=10", "peserta=Ali;skor=", "peserta=Ali", "skor=0",
			"peserta=Ali;skor=0;soal=1", "peserta=Ali;skor=0;x=y", "peserta=Ali;soal=1;skor=10", "status=selesai"}
		var want []string
		for _, j := range joins {
			fields := map[string]string{}
			for _, part := range strings.Split(j, ";") {
				k, v, _ := strings.Cut(part, "=")
				fields[k] = v
			}
			got, err := wire.DecodeEntry("1-1", fields, 3)
			want = append(want, show(err == nil && got.Kind == wire.Join, got.Participant))
		}
		if diff := cmp.Diff(want, lua.call("joinOf", 3, joins...)); diff != "" {
			t.Errorf("join entries, Go (-) and Lua (+):\n%s", diff)
		}
		if want[0] != "Ali" {
			t.Errorf("a join of Ali decodes as %q in Go", want[0])
		}
	})
	t.Run("places", func(t *testing.T) {
		var in, want []string
		for _, c := range []int64{-1, 0, 1, 1000, 2047, 2048} {
			for _, ms := range []int64{-1, 0, 1, 1764662400000, wire.PlaceUnit - 1, wire.PlaceUnit, 5000000000000} {
				in = append(in, fmt.Sprintf("%d,%d", c, ms))
				p, ok := wire.Place(c, ms)
				want = append(want, show(ok, p))
			}
		}
		if diff := cmp.Diff(want, lua.call("place", 0, in...)); diff != "" {
			t.Errorf("places, Go (-) and Lua (+):\n%s", diff)
		}
	})
	t.Run("agreement", func(t *testing.T) {
		var in, want []string
		for _, p := range []string{"0", "4398046511104", "13194139533311", "9007199254740991", "9007199254740992", "-1",
			"-4398046511104", "4398046511104.5", "x"} {
			for _, s := range []string{"0", "10", "20", "30", "15", "-10", "20470", "20480", "9007199254740990", "x"} {
				in = append(in, p+","+s)
				pf, err1 := strconv.ParseFloat(p, 64)
				sf, err2 := strconv.ParseFloat(s, 64)
				want = append(want, show(err1 == nil && err2 == nil && wire.Agrees(pf, sf), true))
			}
		}
		if diff := cmp.Diff(want, lua.call("agrees", 0, in...)); diff != "" {
			t.Errorf("agreement of places and scores, Go (-) and Lua (+):\n%s", diff)
		}
	})
	t.Run("ledger values", func(t *testing.T) {
		values := []string{"10", "20", "0", "15", "010", "+10", "-10", "1e2", "9007199254740990", "9007199254740980",
			"9007199254741000", "90071992547409900", " 10", "10 ", "", "x0"}
		var want []string
		for _, v := range values {
			n, ok := wire.ParseLedgerPoints(v)
			want = append(want, show(ok, n))
		}
		if diff := cmp.Diff(want, lua.call("ledgerPoints", 0, values...)); diff != "" {
			t.Errorf("ledger values, Go (-) and Lua (+):\n%s", diff)
		}
	})
	t.Run("markers", func(t *testing.T) {
		var want []string
		for _, s := range wire.Markers {
			m, ok := wire.ParseMarker(s)
			want = append(want, show(ok, m.Possible, m.Participants, m.Points, m.Digest, m.FoldedMS, m.String()))
		}
		if diff := cmp.Diff(want, lua.call("markerOf", 0, wire.Markers...)); diff != "" {
			t.Errorf("markers, Go (-) and Lua (+):\n%s", diff)
		}
	})
	t.Run("times", func(t *testing.T) {
		ids := []string{"0-0", "1764662400000-3", "4398046511103-0", "4398046511104-0", "5000000000000-1", "18446744073709551615-0"}
		var want []string
		for _, s := range ids {
			id, _ := wire.ParseID(s)
			ms := id.MS
			if ms >= wire.PlaceUnit {
				ms = 0
			}
			want = append(want, show(true, ms))
		}
		if diff := cmp.Diff(want, lua.call("timeOf", 0, ids...)); diff != "" {
			t.Errorf("times a place holds, Go (-) and Lua (+):\n%s", diff)
		}
	})
}

// FuzzPairGoAndLua: for any member and question count, Go's ParsePair and
// the prelude's pairOf decide alike.
func FuzzPairGoAndLua(f *testing.F) {
	f.Add("3:Ali", uint16(3))
	f.Add("04:Ali", uint16(5))
	lua := newLuaCodec(f)
	f.Fuzz(func(t *testing.T, member string, n uint16) {
		lua.t = t
		q, p, ok := wire.ParsePair(member, int(n))
		if got, want := lua.call("pairOf", int(n), member)[0], show(ok, q, p); got != want {
			t.Fatalf("member %q of %d questions: Go %q, Lua %q", member, n, want, got)
		}
	})
}

package wire

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// ID is a stream entry ID, <ms>-<seq>.
type ID struct{ MS, Seq uint64 }

// ParseID parses an entry ID: two decimal numbers of at most 20 digits,
// without sign, joined by '-', each at most 2^64 - 1.
func ParseID(s string) (ID, bool) {
	ms, seq, found := strings.Cut(s, "-")
	if !found || !digits(ms, 20) || !digits(seq, 20) {
		return ID{}, false
	}
	m, err1 := strconv.ParseUint(ms, 10, 64)
	n, err2 := strconv.ParseUint(seq, 10, 64)
	if err1 != nil || err2 != nil {
		return ID{}, false
	}
	return ID{m, n}, true
}

// digits reports whether s is 1 to most decimal digits.
func digits(s string, most int) bool {
	if s == "" || len(s) > most {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (id ID) String() string {
	return strconv.FormatUint(id.MS, 10) + "-" + strconv.FormatUint(id.Seq, 10)
}

// Less reports whether id sorts before o in a stream.
func (id ID) Less(o ID) bool {
	return id.MS < o.MS || id.MS == o.MS && id.Seq < o.Seq
}

// Next is the ID right after id; ok is false for the greatest ID a stream
// can hold, which has none.
func (id ID) Next() (next ID, ok bool) {
	switch {
	case id.Seq < math.MaxUint64:
		return ID{id.MS, id.Seq + 1}, true
	case id.MS < math.MaxUint64:
		return ID{id.MS + 1, 0}, true
	default:
		return id, false
	}
}

// Time is the server time the ID was made at, to the millisecond, in UTC.
func (id ID) Time() time.Time {
	return time.UnixMilli(int64(min(id.MS, math.MaxInt64))).UTC()
}

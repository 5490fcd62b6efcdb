package wire

import "math"

// A participant's place in the order set is count * PlaceUnit + (PlaceUnit
// - 1 - ms), count their counted answers and ms the server time of the
// latest, so that ZRANGE ... REV puts more answers first and, among as
// many, the earlier time first. Without a time (ms 0) the place is count *
// PlaceUnit, after every timed participant with as many. A place is exact
// in a double while it is below 2^53: so count is at most MaxPlaceCount,
// and ms below PlaceUnit (until the year 2109).
const (
	PlaceUnit     = 1 << 42
	MaxPlaceCount = (1<<53 - 1) / PlaceUnit // 2047
)

// Place is the order set's score for count counted answers, the latest at
// ms (0: no time known); ok is false when the place cannot hold them.
func Place(count, ms int64) (place int64, ok bool) {
	if count < 0 || count > MaxPlaceCount || ms < 0 || ms >= PlaceUnit {
		return 0, false
	}
	place = count * PlaceUnit
	if ms > 0 {
		place += PlaceUnit - 1 - ms
	}
	return place, true
}

// PlaceCount is the count of answers a place holds; ok is false for a
// number that is no place (negative, fractional, or 2^53 and above).
func PlaceCount(place float64) (count int64, ok bool) {
	if !(place >= 0 && place < 1<<53) || place != math.Trunc(place) {
		return 0, false
	}
	return int64(place) / PlaceUnit, true
}

// Agrees reports whether a place agrees with a board score: both sound, and
// the place's count of answers is the score's, 10 points each.
func Agrees(place, score float64) bool {
	count, ok := PlaceCount(place)
	points, sound := Score(score)
	return ok && sound && count == points/Points
}

// Points is what one counted answer is worth.
const Points = 10

// MaxScore is the largest sound score: the largest multiple of 10 that a
// double (and so Lua and a sorted set) holds exactly, 2^53 - 2.
const MaxScore = 1<<53 - 2

// Score decodes a board score: sound when it is a non-negative multiple of
// Points of at most MaxScore.
func Score(f float64) (int64, bool) {
	if !(f >= 0 && f <= MaxScore) || f != math.Trunc(f) || int64(f)%Points != 0 {
		return 0, false
	}
	return int64(f), true
}

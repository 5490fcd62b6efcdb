package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// A course's ledger is an index and one hash per folded quiz instance. The
// index's field "<quiz>@<instance>" (IndexField) holds the instance's
// marker; the instance's hash maps each participant of its recap to the
// points it gave them. A quiz ID never holds '@', so a field's first '@'
// ends its quiz ID. Every points value is a multiple of Points from 0 to
// MaxScore in decimal without sign or leading zeros. prelude.lua's
// ledgerPoints, markerOf and markerString are the Lua twin.

// InstanceSeparator joins a quiz ID and its instance in an index field.
const InstanceSeparator = "@"

// maxLedgerDigits is the length of MaxScore in decimal.
const maxLedgerDigits = 16

// IndexField is the index field, and the ledger key's suffix, of the
// instance of quizID.
func IndexField(quizID, instance string) string { return quizID + InstanceSeparator + instance }

// ParseIndexField splits an index field at its first '@' into the quiz ID
// and the instance. ok is false for a field without '@', with nothing
// before it, or whose instance is not a stream entry ID. Whether the quiz ID
// follows its rule is the caller's to check.
func ParseIndexField(field string) (quizID, instance string, ok bool) {
	quizID, instance, ok = strings.Cut(field, InstanceSeparator)
	if _, isID := ParseID(instance); !ok || quizID == "" || !isID {
		return "", "", false
	}
	return quizID, instance, true
}

// FormatLedgerPoints writes a ledger value in its one form: decimal, without
// sign or leading zeros.
func FormatLedgerPoints(points int64) string { return strconv.FormatInt(points, 10) }

// ParseLedgerPoints reads a ledger value: ok only for the form
// FormatLedgerPoints writes of a multiple of Points from 0 to MaxScore, so
// that a value read back is written back byte for byte.
func ParseLedgerPoints(s string) (points int64, ok bool) {
	if n, ok := ledgerNumber(s); ok && n%Points == 0 {
		return n, true
	}
	return 0, false
}

// ledgerNumber reads a decimal from 0 to MaxScore without sign or leading
// zeros: every number of a ledger.
func ledgerNumber(s string) (int64, bool) {
	if !digits(s, maxLedgerDigits) || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > MaxScore {
		return 0, false
	}
	return n, true
}

// Marker is what the index holds of one folded quiz instance:
// "<possible> <participants> <points> <digest> <folded_ms>".
type Marker struct {
	Possible     int64  // 10 x the quiz's jumlah_soal
	Participants int64  // the recap's standings, 0-point ones included
	Points       int64  // their sum
	Digest       string // RecapDigest of the recap folded
	FoldedMS     int64  // server time the fold was complete; 0 while it is in parts
}

// digestLen is the length of a digest in hex.
const digestLen = 32

// String writes the marker in its one form.
func (m Marker) String() string {
	return strings.Join([]string{FormatLedgerPoints(m.Possible), FormatLedgerPoints(m.Participants),
		FormatLedgerPoints(m.Points), m.Digest, FormatLedgerPoints(m.FoldedMS)}, " ")
}

// ParseMarker reads a marker: five fields separated by one space, the
// digest 32 lowercase hex digits, possible a multiple of Points from
// Points to Points x MaxQuestions, points a multiple of Points, and every
// number in the form ledgerNumber reads.
func ParseMarker(s string) (Marker, bool) {
	f := strings.Split(s, " ")
	if len(f) != 5 || len(f[3]) != digestLen || strings.Trim(f[3], "0123456789abcdef") != "" {
		return Marker{}, false
	}
	var n [5]int64
	for i, j := range []int{0, 1, 2, 4} {
		v, ok := ledgerNumber(f[j])
		if !ok {
			return Marker{}, false
		}
		n[i] = v
	}
	m := Marker{Possible: n[0], Participants: n[1], Points: n[2], Digest: f[3], FoldedMS: n[3]}
	if m.Possible < Points || m.Possible > Points*MaxQuestions || m.Possible%Points != 0 || m.Points%Points != 0 {
		return Marker{}, false
	}
	return m, true
}

// RecapDigest is the digest of a recap as a fold sees it: the first 16
// bytes of SHA-256 of quiz ID, instance, possible points and each
// participant's name and points (pairs, in byte order of names), joined by
// NUL and newline bytes, which no ID or stored name holds, in lowercase hex.
func RecapDigest(quizID, instance string, possible int64, pairs [][2]string) string {
	h := sha256.New()
	h.Write([]byte(quizID + "\x00" + instance + "\x00" + FormatLedgerPoints(possible) + "\n"))
	for _, p := range pairs {
		h.Write([]byte(p[0] + "\x00" + p[1] + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)[:digestLen/2])
}

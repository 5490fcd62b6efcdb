package kuis

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"strconv"
)

// Pseudonym returns a stable alias for a participant name under secret, so
// that a projector can show a class's board without showing names: an
// animal, a colour or good quality, and a number of 10 to 99, as "Harimau
// Biru 37". All three are taken from HMAC-SHA256(secret, name), the name
// first cleaned as CleanParticipant cleans it ("Ali " and "Ali" have one
// alias; a name CleanParticipant refuses is taken as it is), so the alias is
// the same on every screen and run that share the secret, and nobody who
// lacks the secret can tell a name from its alias, even with the class list.
// It does no I/O.
//
// The number is always there, not only when two names of a board share
// their two words: an alias that gained a suffix when a namesake joined
// would change in front of the class, and one that depended on who else is
// on the board would differ between two screens. Always present, it depends
// on the name alone, so nobody's alias ever changes when someone joins. Of
// the 1,602,900 aliases (130 animals x 137 words x 90 numbers), two given
// names share one with a chance of 1 in 1,602,900: about 1 in 2,000 that
// any two of a class of 40 do. A screen that must tell every row apart still can: a
// student sees their own alias beside their name (examples/liveboard does
// so).
//
// Use a secret of at least 16 random bytes, kept off the students' screens
// (examples/liveboard reads it from the environment): with a short or known
// secret anyone with the class list can compute every alias. The same
// secret gives every quiz the same aliases; change it to give a class new
// ones.
func Pseudonym(secret []byte, name string) string {
	if clean, err := CleanParticipant(name); err == nil {
		name = clean
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(name)) // never fails (hash.Hash)
	sum := mac.Sum(nil)
	// Each part from its own 8 bytes: the bias of a 64-bit number modulo a
	// list's length is below 2^-56.
	part := func(i int, n uint64) uint64 { return binary.BigEndian.Uint64(sum[8*i:]) % n }
	animal := pseudonymAnimals[part(0, uint64(len(pseudonymAnimals)))]
	modifier := pseudonymModifiers[part(1, uint64(len(pseudonymModifiers)))]
	return animal + " " + modifier + " " + strconv.FormatUint(10+part(2, 90), 10)
}

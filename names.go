package kuis

import (
	"fmt"

	names "github.com/kuisboard/kuis/internal/name"
)

// CleanParticipant returns name as kuis stores it, or an error that
// errors.Is ErrInvalidParticipant and says what to change: a character it
// refuses is named as name holds it, with its position in name in
// characters from 1 ("Siti\u3164" holds U+3164 at character 5, whatever
// cleaning makes of it), as every refusal of a name does. Call it when a
// student joins: the methods that take a participant never clean a name,
// they refuse one that is not clean, and compare names byte for byte after
// cleaning ("ali" and "Ali" are two students). Cleaning a clean name returns
// it unchanged. It does no I/O.
//
// Cleaning maps a name the way the PRECIS Nickname profile (RFC 8266) does,
// so that names a class reads as one are one: the white space around it
// goes, every space inside (U+00A0, U+3000 and the other Unicode spaces)
// becomes U+0020 and a run of them one, and the name is normalized to
// Unicode NFKC, which maps fullwidth letters and other compatibility forms
// to the plain ones: "Ａｌｉ" is "Ali", and "Ali  Baba" with two spaces or
// with U+00A0 is "Ali Baba". A variation selector U+FE0F after a character
// it does not change (an emoji shown as emoji anyway, a skin tone, a flag's
// letter, a pictograph without an emoji form such as ★) goes too.
//
// The rule passes the real names of the world: beyond the profile, it takes
// U+00B7 MIDDLE DOT between two letters (a letter and its marks before it,
// a letter right after), as Chinese transliterations write it
// ("列夫·托尔斯泰"; the profile takes it only in Catalan's "l·l"), and
// U+0640 ARABIC TATWEEL within an Arabic word (between two Arabic letters,
// with only tatweels and marks between them: "محـمد"). Apostrophes and
// hyphens pass as the profile takes them ("O'Brien", "N’Golo", "Kealiʻi",
// "Jean-Luc").
//
// A name is refused when, cleaned, it would show as nothing or pass for
// another student's name:
//   - it is empty, longer than 64 characters or not valid UTF-8;
//   - it holds a character the profile disallows: control and format
//     characters, Unicode's Default_Ignorable_Code_Point (zero-width spaces,
//     word joiners, invisible operators, fillers such as U+3164, tags,
//     variation selectors), bidirectional controls, line and paragraph
//     separators, private-use, unassigned and old Hangul jamo code points;
//     or a blank symbol that shows as a space (U+2800, U+1D159); or a middle
//     dot or tatweel out of the places above;
//   - it has no letter, digit or symbol;
//   - its letters (and the marks and digits that belong to a script) come
//     from more than one script, as the Cyrillic "А" beside the Latin "li" of
//     "Аli", but as UTS #39's Highly Restrictive level allows: the scripts of
//     one of Japanese (Latin, Han, Hiragana, Katakana: "田中Taro"), Chinese
//     with Bopomofo (Latin, Han, Bopomofo) or Korean (Latin, Han, Hangul).
//     Characters of Unicode's Common and Inherited scripts, such as digits
//     0-9, punctuation, emoji and most combining marks, go with any script;
//   - a joiner (U+200C, U+200D) starts or ends it, or stands where neither
//     the profile's context rules keep it (after a virama in Indic scripts,
//     U+200C between joining letters as in Persian names) nor an emoji
//     sequence joins two pictographs with U+200D (👩‍🎓, 👨‍👩‍👧, 🏳️‍🌈);
//   - a variation selector U+FE0F follows no emoji that it turns from text
//     into emoji (❤️, the keycap 1️⃣); tags only spell the flags of England,
//     Scotland and Wales.
//
// The rule sees one name at a time: "TOM" and the Greek "ΤΟΜ" both pass. A
// class's roster tells two students apart ([Class.Enroll] refuses a name a
// class would confuse with another's: ErrNameTaken).
func CleanParticipant(name string) (string, error) {
	clean, problem := names.Clean(name)
	if problem != "" {
		return "", fmt.Errorf("%w: %s %s", ErrInvalidParticipant, quote(name), problem)
	}
	return clean, nil
}

// nameProblem says what breaks CleanParticipant's rule in name, in words a
// student can act on, or "" when it holds: when name is exactly what
// CleanParticipant returns for it.
func nameProblem(name string) string { return names.Problem(name, "CleanParticipant") }

// checkParticipant is ErrInvalidParticipant, naming the subject about("")
// of a quiz or board, unless name holds CleanParticipant's rule.
func checkParticipant(name string, about func(participant string) string) error {
	if problem := nameProblem(name); problem != "" {
		// Not about(name), which leaves out an empty participant.
		return fmt.Errorf("%w: %s: participant %s %s", ErrInvalidParticipant, about(""), quote(name), problem)
	}
	return nil
}

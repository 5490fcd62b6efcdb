package wire

import "strconv"

// The meta hash's fields, statuses and views, as the contract spells them.
const (
	FieldTitle     = "judul"
	FieldQuestions = "jumlah_soal"
	FieldStatus    = "status"
	FieldCourse    = "kursus"   // the course a quiz folds into, written at Create only
	FieldClass     = "kelas"    // the class whose roster grades it, written at Create only
	FieldView      = "tampilan" // who sees the board: ViewShown, ViewHidden or ViewAtEnd

	Running  = "berjalan" // the quiz takes answers
	Finished = "selesai"  // it takes none

	ViewShown  = "tampil"   // everyone sees the board (a meta without tampilan)
	ViewHidden = "sembunyi" // hidden from the students
	ViewAtEnd  = "akhir"    // shown once the quiz is finished
)

// MaxQuestions bounds jumlah_soal: Create writes 1 to MaxQuestions, and a
// quiz with more is corrupt for every reader, so that no count of answers
// can pass what an order place holds.
const MaxQuestions = 1000

// Questions decodes jumlah_soal: a positive decimal integer without sign or
// leading zeros, at most MaxQuestions.
func Questions(s string) (int, bool) {
	return number(s, MaxQuestions)
}

// number decodes a positive decimal integer without sign or leading zeros
// of at most most: the form of jumlah_soal and of every question number.
func number(s string, most int) (int, bool) {
	if !digits(s, len(strconv.Itoa(most))) || s[0] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > most {
		return 0, false
	}
	return n, true
}

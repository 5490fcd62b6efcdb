package kuis

import (
	"context"
	"fmt"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
)

// Visibility is the meta field tampilan: who sees a quiz's board. The
// teacher sets it with [Meta.SetVisibility] and [Meta.Get] returns it in
// [Info.Visibility]; the library stores it and refuses no read because of
// it (the teacher's own screen reads a hidden board): an application shows
// what it says, as examples/liveboard does.
type Visibility string

// The three visibilities the contract allows, as meta field tampilan holds them.
const (
	// VisibilityShown ("tampil"): everyone sees the board. A meta without
	// tampilan reads as this.
	VisibilityShown Visibility = wire.ViewShown
	// VisibilityHidden ("sembunyi"): the projector shows no standings (the
	// quiz's progress and who joined only) and each student only their own
	// score.
	VisibilityHidden Visibility = wire.ViewHidden
	// VisibilityAtEnd ("akhir"): the board is shown once the quiz is
	// finished, and hidden, as VisibilityHidden, until then.
	VisibilityAtEnd Visibility = wire.ViewAtEnd
)

// Valid reports whether v is one of the three visibilities.
func (v Visibility) Valid() bool {
	return v == VisibilityShown || v == VisibilityHidden || v == VisibilityAtEnd
}

// ShowsBoard reports whether a screen other than the teacher's shows the
// standings of a quiz of status st under v: always when shown, never when
// hidden, once finished when at the end. An invalid v shows nothing.
func (v Visibility) ShowsBoard(st Status) bool {
	switch v {
	case VisibilityShown:
		return true
	case VisibilityAtEnd:
		return st == StatusFinished
	default:
		return false
	}
}

// SetVisibility writes meta field tampilan, O(1), in one atomic step gated by
// the meta existing and being sound; the status does not matter (a finished
// quiz may still change it), and nothing else of the quiz changes. Setting
// the value it already holds succeeds. Errors: ErrInvalidOption (v is not
// VisibilityShown, VisibilityHidden or VisibilityAtEnd) before any I/O,
// ErrQuizNotFound (nothing is created), ErrCorrupt (malformed meta: Audit
// says what), ErrForbidden; nothing is written then. With WithReplicas,
// ErrNotReplicated: the field was written on the primary.
func (m *Meta) SetVisibility(ctx context.Context, v Visibility) error {
	if !v.Valid() {
		return fmt.Errorf("%w: %s: visibility %s (want %q, %q or %q)", ErrInvalidOption, m.q.about(""), quote(string(v)),
			VisibilityShown, VisibilityHidden, VisibilityAtEnd)
	}
	err := m.q.s.run(ctx, script.Visibility, []string{m.q.keys.meta}, []string{string(v)}).Error()
	return m.q.fail(err, "", m.q.keys.meta)
}

package kuis

import "context"

// quizState is a quiz as its feeds follow it and where Repair starts: its
// meta, and the first and last entries of its log.
type quizState struct {
	info Info
	// start is the log's first entry (the start entry Create writes) and
	// tail its last; nil for an empty or missing log. Either may be an entry
	// that does not decode (its err set): a reader meets it in its turn.
	start, tail *logRead
}

// state reads the quiz's meta and the two ends of its log in one round trip:
// HGETALL meta first, then XRANGE log - + COUNT 1 and XREVRANGE log + -
// COUNT 1, so that once the status says selesai, nothing is logged after the
// tail read. Errors: ErrQuizNotFound, ErrCorrupt (meta, or a key of the
// wrong type), ErrForbidden.
func (q quiz) state(ctx context.Context) (quizState, error) {
	k, c := q.keys, q.s.client
	res := q.s.send(ctx, c,
		c.B().Hgetall().Key(k.meta).Build(),
		c.B().Xrange().Key(k.log).Start("-").End("+").Count(1).Build(),
		c.B().Xrevrange().Key(k.log).End("+").Start("-").Count(1).Build())
	fields, err := res[0].AsStrMap()
	info, err := q.decodeMeta(fields, err, needStatus|needQuestions)
	if err != nil {
		return quizState{}, err
	}
	st := quizState{info: info}
	for i, end := range []**logRead{&st.start, &st.tail} {
		entries, err := res[1+i].AsXRange()
		if err != nil {
			return quizState{}, q.fail(err, "", k.log)
		}
		if len(entries) == 0 {
			continue
		}
		e, ok := readEntry(entries[0], int(info.Questions))
		if !ok {
			return quizState{}, corrupt(k.log, "%v", e.err)
		}
		*end = &e
	}
	return st, nil
}

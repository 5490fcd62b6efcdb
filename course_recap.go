package kuis

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// courseAttempts is how many times a course is read whole before the read
// gives up because the course changed each time (ErrBusy).
const courseAttempts = 3

// courseSnapshot is a course read whole at one moment.
type courseSnapshot struct {
	ledger map[string]string // every field
	board  []rueidis.ZScore  // in ZRANGE ... REV's order
}

// courseReads says which keys a snapshot reads: Audit skips a key of the
// wrong type.
type courseReads struct{ ledger, board bool }

// snapshot reads the course's keys (those read says) whole, in pages, on one
// connection that WATCHes both, hands what it read to decide, and sends the
// writes decide returns (none: an empty transaction) in MULTI/EXEC, which the
// server refuses if a key changed after the WATCH: then what decide saw was
// not of one moment, nothing is written, and changed is true. Otherwise it
// returns EXEC's replies. With WithReplicas, WAIT follows the writes there.
func (c *Course) snapshot(ctx context.Context, read courseReads, decide func(courseSnapshot) ([]rueidis.Completed, error)) (replies []rueidis.RedisMessage, changed bool, err error) {
	k := c.keys
	err = c.s.client.Dedicated(func(conn rueidis.DedicatedClient) (err error) {
		watch := []rueidis.Completed{conn.B().Watch().Key(k.board).Build(), conn.B().Watch().Key(k.ledger).Build()}
		for _, res := range send(ctx, conn, watch...) { // one key each: a moving slot never answers TRYAGAIN
			if err := res.Error(); err != nil {
				return c.fail(err, "", k.board)
			}
		}
		defer func() {
			if err != nil { // leave the connection as it was found
				sendOne(context.WithoutCancel(ctx), conn, conn.B().Unwatch().Build())
			}
		}()
		var snap courseSnapshot
		if read.ledger {
			if snap.ledger, err = c.pager(conn, "").fields(ctx, c.keys.ledger, "*"); err != nil {
				return err
			}
		}
		if read.board {
			if snap.board, err = c.pager(conn, "").sorted(ctx, c.keys.board); err != nil {
				return err
			}
		}
		writes, err := decide(snap)
		if err != nil {
			return err
		}
		cmds := make([]rueidis.Completed, 0, len(writes)+2)
		cmds = append(append(append(cmds, conn.B().Multi().Build()), writes...), conn.B().Exec().Build())
		res := send(ctx, conn, cmds...)
		for _, r := range res[:len(res)-1] { // a write refused as it was queued (ACL): EXEC discards them all
			if err := r.Error(); err != nil {
				return c.fail(err, "", k.board)
			}
		}
		exec := res[len(res)-1]
		if rueidis.IsRedisNil(exec.Error()) {
			changed = true
			return nil
		}
		if replies, err = exec.ToArray(); err != nil {
			return c.fail(err, "", k.board)
		}
		for _, r := range replies {
			if err := r.Error(); err != nil {
				return c.fail(err, "", k.board)
			}
		}
		if len(writes) > 0 {
			if err := c.s.awaitReplicas(ctx, conn); err != nil {
				return c.fail(err, "", k.board)
			}
		}
		return nil
	})
	return replies, changed, err
}

// consistent is snapshot, read again while the course changed under it, up
// to courseAttempts times in all, then ErrBusy: exact on a course being
// folded meanwhile, at the cost of reading again.
func (c *Course) consistent(ctx context.Context, read courseReads, decide func(courseSnapshot) ([]rueidis.Completed, error)) ([]rueidis.RedisMessage, error) {
	for attempt := 1; ; attempt++ {
		replies, changed, err := c.snapshot(ctx, read, decide)
		switch {
		case err != nil:
			return nil, err
		case !changed:
			return replies, nil
		case attempt == courseAttempts:
			return nil, fmt.Errorf("%w: %s: the course changed each of the %d times it was read", ErrBusy, c.about("", ""), attempt)
		}
	}
}

// CourseRecap is a course's standings and ledger, taken as one consistent
// snapshot: what a school copies elsewhere before the course is purged.
type CourseRecap struct {
	CourseID  string       `json:"course_id"`
	Standings []Standing   `json:"standings"` // the whole board, as Course.Standings reads it
	Quizzes   []CourseQuiz `json:"quizzes"`   // the folded quizzes, as Course.Quizzes lists them
	Possible  int64        `json:"possible"`  // 10 x the folded quizzes' questions
	// Entries is the ledger: every (quiz, participant) folded with its
	// points, by quiz ID then participant; enough to fold the course again.
	// It includes the entries of a quiz whose Fold or Unfold stopped midway,
	// which Quizzes does not list.
	Entries []CourseEntry `json:"entries"`
	TakenAt time.Time     `json:"taken_at"` // the caller's clock when the snapshot was taken
}

// CourseEntry is one field of a course's ledger: the points one quiz gave
// one participant.
type CourseEntry struct {
	QuizID      string `json:"quiz_id"`
	Participant string `json:"participant"`
	Points      int64  `json:"points"`
}

// Recap reads the course whole as one consistent snapshot: the board and the
// ledger in HSCAN and ZSCAN pages on one connection that watches both keys,
// so no step holds the server long, read again if a fold changed them
// meanwhile: O(L + N), L the ledger's fields. It never reads from the
// client-side cache. Every name comes back byte for byte, so the recap
// archives losslessly in JSON: a board member that is not valid UTF-8 (only
// a raw write makes one) is ErrCorrupt. A course with nothing folded is a
// recap with empty lists. Errors: ErrCorrupt (a key of the wrong type, a
// total that is not sound, a ledger field out of its form), ErrBusy (the
// course changed each of three reads), ErrForbidden.
func (c *Course) Recap(ctx context.Context) (CourseRecap, error) {
	var r CourseRecap
	_, err := c.consistent(ctx, courseReads{ledger: true, board: true}, func(snap courseSnapshot) ([]rueidis.Completed, error) {
		var err error
		r, err = c.recapOf(snap)
		return nil, err
	})
	return r, err
}

// recapOf is the recap of a snapshot.
func (c *Course) recapOf(snap courseSnapshot) (CourseRecap, error) {
	l, err := c.strictLedger(snap.ledger)
	if err != nil {
		return CourseRecap{}, err
	}
	standings, err := decodeStandings(c.keys.board, snap.board, 1)
	if err != nil {
		return CourseRecap{}, err
	}
	for _, s := range standings {
		if !utf8.ValidString(s.Participant) {
			return CourseRecap{}, corrupt(c.keys.board, "member %s is not valid UTF-8, which an archive cannot keep", quote(s.Participant))
		}
	}
	r := CourseRecap{CourseID: c.keys.courseID, Standings: standings, Quizzes: l.folded(),
		Entries: append([]CourseEntry{}, l.entries...), TakenAt: time.Now()}
	for _, q := range r.Quizzes {
		r.Possible = addPoints(r.Possible, wire.Points*q.Questions)
	}
	return r, nil
}

// WriteCSV writes the course's standings with encoding/csv: the header row
// "rank,competition_rank,participant,score" and then one column per folded
// quiz, named by its ID, in Quizzes' order; then one row per participant, in
// Standings' order, each quiz's cell the points it gave the participant (0
// for a quiz they have no points from). opts choose the file's form
// (ForSpreadsheet); by default names are written exactly as stored. It
// returns w's error as it is.
func (r CourseRecap) WriteCSV(w io.Writer, opts ...CSVOption) error {
	cw := newCSVWriter(w, opts)
	header := []string{"rank", "competition_rank", "participant", "score"}
	column := make(map[string]int, len(r.Quizzes))
	for i, q := range r.Quizzes {
		header = append(header, q.QuizID)
		column[q.QuizID] = i
	}
	if err := cw.write(header); err != nil {
		return err
	}
	got := map[string][]int64{}
	for _, e := range r.Entries {
		if i, ok := column[e.QuizID]; ok {
			if got[e.Participant] == nil {
				got[e.Participant] = make([]int64, len(r.Quizzes))
			}
			got[e.Participant][i] = e.Points
		}
	}
	for _, s := range r.Standings {
		row := []string{strconv.Itoa(s.Rank), strconv.Itoa(s.CompetitionRank), s.Participant, strconv.FormatInt(s.Score, 10)}
		points := got[s.Participant]
		for i := range r.Quizzes {
			var p int64
			if points != nil {
				p = points[i]
			}
			row = append(row, strconv.FormatInt(p, 10))
		}
		if err := cw.write(row); err != nil {
			return err
		}
	}
	return cw.flush()
}

// Purge deletes the course's keys, and only after its standings are safe:
// it takes the recap (as Recap), calls archive with it, and only if archive
// returns nil deletes the board and the ledger in one transaction that the
// server refuses if the course changed since the recap was taken (a quiz
// folded meanwhile would be lost with no archive of it): then nothing is
// deleted, and it returns ErrBusy; purge again. It returns the number of keys
// deleted (0 for a course with nothing folded).
//
// Nothing is deleted, and archive is not called, when the ACL user may not
// delete the keys (ErrForbidden, checked first), the recap fails
// (ErrCorrupt, ErrBusy) or archive fails (its error, wrapped). Errors
// before any I/O: ErrNoArchive (a nil archive). With WithReplicas,
// ErrNotReplicated: the keys were deleted on the primary, after archive.
func (c *Course) Purge(ctx context.Context, archive func(context.Context, CourseRecap) error) (int64, error) {
	if archive == nil {
		return 0, ErrNoArchive
	}
	if err := c.check(ctx, "purge", ""); err != nil {
		return 0, err
	}
	replies, changed, err := c.snapshot(ctx, courseReads{ledger: true, board: true}, func(snap courseSnapshot) ([]rueidis.Completed, error) {
		r, err := c.recapOf(snap)
		if err != nil {
			return nil, err
		}
		if err := archive(ctx, r); err != nil {
			return nil, fmt.Errorf("kuis: %s: archive failed, nothing deleted: %w", c.about("", ""), err)
		}
		return []rueidis.Completed{c.s.client.B().Unlink().Key(c.keys.board, c.keys.ledger).Build()}, nil
	})
	switch {
	case err != nil:
		return 0, err
	case changed:
		return 0, fmt.Errorf("%w: %s: the course changed while it was read and archived; nothing deleted, purge again", ErrBusy, c.about("", ""))
	}
	if len(replies) != 1 {
		return 0, fmt.Errorf("kuis: %s: purge reply of %d elements, want 1", c.about("", ""), len(replies))
	}
	n, err := replies[0].AsInt64()
	if err != nil {
		return 0, c.fail(err, "", c.keys.board)
	}
	return n, nil
}

// Audit checks the course's keys against the contract and returns one
// Violation per problem, never nil (an empty slice when the course keeps it,
// or has nothing folded), in the order it checks: the type and TTL of the
// board and the ledger ("type", "ttl"); each ledger field's form and value
// ("field": "<quiz>:<participant>" or a marker "<quiz>:", with a valid quiz
// ID and name, and a positive multiple of 10); each quiz with entries but
// no marker ("marker": its Fold or Unfold stopped midway); each board
// member's name and score ("member", "score"); and last each participant's
// total against the sum of their ledger entries ("total": a member without
// points from the ledger has no place on the board). It reads as Recap does,
// one snapshot of one moment, and never writes: O(L + N). Errors: ErrBusy
// (the course changed each of three reads), ErrForbidden.
func (c *Course) Audit(ctx context.Context) ([]Violation, error) {
	k, b := c.keys, c.s.client.B()
	res := send(ctx, c.s.client, b.Type().Key(k.board).Build(), b.Pttl().Key(k.board).Build(),
		b.Type().Key(k.ledger).Build(), b.Pttl().Key(k.ledger).Build())
	found := []Violation{}
	add := func(key, rule, format string, args ...any) {
		found = append(found, Violation{Key: key, Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	var read courseReads
	for i, key := range []string{k.board, k.ledger} {
		typ, err := res[2*i].ToString()
		if err != nil {
			return nil, c.fail(err, "", key)
		}
		ttl, err := res[2*i+1].AsInt64()
		if err != nil {
			return nil, c.fail(err, "", key)
		}
		want := []string{"zset", "hash"}[i]
		switch typ {
		case "none":
			continue
		case want:
			read = courseReads{board: read.board || i == 0, ledger: read.ledger || i == 1}
		default:
			add(key, "type", "is a %s, want a %s", typ, want)
		}
		if ttl != -1 {
			add(key, "ttl", "expires in %d ms; the contract allows no TTL", ttl)
		}
	}
	if !read.board && !read.ledger {
		return found, nil
	}
	shape := len(found)
	_, err := c.consistent(ctx, read, func(snap courseSnapshot) ([]rueidis.Completed, error) {
		found = found[:shape] // a snapshot read again starts over
		c.audit(snap, read, add)
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	return found, nil
}

// audit adds the violations of a snapshot's contents.
func (c *Course) audit(snap courseSnapshot, read courseReads, add func(key, rule, format string, args ...any)) {
	k := c.keys
	l := decodeLedger(snap.ledger, func(f, problem string) { add(k.ledger, "field", "field %s %s", quote(f), problem) })
	var unmarked []string
	for id := range l.quizzes {
		if !l.marked[id] {
			unmarked = append(unmarked, id)
		}
	}
	slices.Sort(unmarked)
	for _, id := range unmarked {
		add(k.ledger, "marker", "quiz %s has %d entries and no marker %s: its Fold or Unfold stopped midway; fold or unfold it again",
			quote(id), l.quizzes[id].Participants, quote(wire.LedgerMarker(id)))
	}
	if !read.board {
		return // a board of the wrong type holds no totals to compare
	}
	scores := make(map[string]float64, len(snap.board))
	names := make([]string, 0, len(snap.board)+len(l.totals))
	for _, z := range snap.board {
		scores[z.Member] = z.Score
		names = append(names, z.Member)
	}
	slices.Sort(names)
	for _, p := range names {
		if problem := nameProblem(p); problem != "" {
			add(k.board, "member", "participant %s %s", quote(p), problem)
		}
		if _, err := decodeScore(k.board, p, scores[p]); err != nil {
			add(k.board, "score", "member %s has score %s, want a non-negative multiple of 10", quote(p), number(scores[p]))
		}
	}
	if !read.ledger {
		return // a ledger of the wrong type gives no totals to compare
	}
	for p := range l.totals {
		if _, ok := scores[p]; !ok {
			names = append(names, p)
		}
	}
	slices.Sort(names)
	for _, p := range names {
		score, onBoard := scores[p]
		switch want := l.totals[p]; {
		case !onBoard:
			add(k.board, "total", "participant %s is not on the board, and the ledger gives %d points", quote(p), want)
		case want == 0:
			add(k.board, "total", "member %s has %s points, and the ledger gives none", quote(p), number(score))
		case score != float64(want):
			add(k.board, "total", "member %s has %s points, and the ledger gives %d", quote(p), number(score), want)
		}
	}
}

// Repair sets every total of the course board back to the sum of the
// participant's ledger entries: it adds missing members, removes members
// without points in the ledger and corrects the others. It reads as Recap
// does, one snapshot of one moment, and writes the corrections in one
// transaction that the server refuses if a fold changed the course
// meanwhile (then it reads again): O(L + N). It returns what it changed, in
// participant order (Now 0 means removed), and an empty slice when nothing
// needed it. It is the operator's operation (ACLRules(RoleOperator)).
// Errors: ErrForbidden (checked first; nothing written), ErrCorrupt (a key of
// the wrong type, or a ledger field out of its form: the ledger must be
// mended, or the quiz unfolded, before the totals can be set from it),
// ErrBusy (the course changed each of three reads; nothing written); with
// WithReplicas, ErrNotReplicated (the corrections were applied on the primary).
func (c *Course) Repair(ctx context.Context) ([]Correction, error) {
	if err := c.check(ctx, "repair", ""); err != nil {
		return nil, err
	}
	var out []Correction
	_, err := c.consistent(ctx, courseReads{ledger: true, board: true}, func(snap courseSnapshot) ([]rueidis.Completed, error) {
		l, err := c.strictLedger(snap.ledger)
		if err != nil {
			return nil, err
		}
		out = []Correction{}
		scores := make(map[string]float64, len(snap.board))
		for _, z := range snap.board {
			scores[z.Member] = z.Score
		}
		names := make([]string, 0, len(scores)+len(l.totals))
		for p := range scores {
			names = append(names, p)
		}
		for p := range l.totals {
			if _, ok := scores[p]; !ok {
				names = append(names, p)
			}
		}
		slices.Sort(names)
		var set []rueidis.ZScore
		var drop []string
		for _, p := range names {
			score, onBoard := scores[p]
			want := l.totals[p]
			switch {
			case want == 0 && onBoard:
				drop = append(drop, p)
			case want > 0 && (!onBoard || score != float64(want)):
				set = append(set, rueidis.ZScore{Member: p, Score: float64(want)})
			default:
				continue
			}
			out = append(out, Correction{Participant: p, Was: wasScore(score), Now: want})
		}
		b := c.s.client.B()
		var writes []rueidis.Completed
		for _, part := range slices.Collect(slices.Chunk(set, c.s.tune.foldStep)) {
			z := b.Zadd().Key(c.keys.board).ScoreMember()
			for _, s := range part {
				z = z.ScoreMember(s.Score, s.Member)
			}
			writes = append(writes, z.Build())
		}
		for _, part := range slices.Collect(slices.Chunk(drop, c.s.tune.foldStep)) {
			writes = append(writes, b.Zrem().Key(c.keys.board).Member(part...).Build())
		}
		return writes, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

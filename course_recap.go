package kuis

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// courseSnapshot is a course read whole at one moment.
type courseSnapshot struct {
	index   map[string]string            // the quiz index's fields
	ledgers map[string]map[string]string // by index field: each listed instance's ledger that is a hash or missing
	shapes  map[string]keyShape          // by index field: each listed ledger's type and PTTL
	board   []rueidis.ZScore             // in ZRANGE ... REV's order
}

// courseReads says which keys a snapshot reads (Audit skips a key of the
// wrong type), and whether it reads the ledgers' types and TTLs (Audit's).
type courseReads struct{ index, board, shapes bool }

// snapshot reads the course's keys (those read says) whole, in pages, on one
// connection that WATCHes each before it reads it (the board, the index,
// then every ledger the index lists), hands what it read to decide, and
// sends the writes decide returns (none: an empty transaction) in
// MULTI/EXEC, which the server refuses if a key changed after its WATCH:
// then what decide saw was not of one moment, nothing is written, and
// changed is true. Otherwise it returns EXEC's replies. With WithReplicas,
// WAIT follows the writes there. A ledger the index does not list is not
// read: a fold writes the index before the ledger, and an unfold deletes it
// after. A snapshot redirected (the slot moved in a failover) starts again
// on the node that serves the slot (rounds).
func (c *Course) snapshot(ctx context.Context, read courseReads, decide func(courseSnapshot) ([]rueidis.Completed, error)) (replies []rueidis.RedisMessage, changed bool, err error) {
	r := courseRead{c: c, ctx: ctx, read: read, decide: decide}
	if err := c.s.rounds(ctx, true, &r); err != nil {
		return nil, false, c.fail(err, "", "", c.keys.board)
	}
	return r.replies, r.changed, r.err
}

// courseRead is one readSnapshot of snapshot, as rounds sends it.
type courseRead struct {
	c       *Course
	ctx     context.Context
	read    courseReads
	decide  func(courseSnapshot) ([]rueidis.Completed, error)
	replies []rueidis.RedisMessage
	changed bool
	err     error
}

func (r *courseRead) round(conn rueidis.CommandClient, more bool) round {
	r.replies, r.changed, r.err = r.c.readSnapshot(r.ctx, conn, r.read, r.decide)
	return again(r.ctx, r.err, more)
}

// readSnapshot is one snapshot on conn, a dedicated connection.
func (c *Course) readSnapshot(ctx context.Context, conn rueidis.CommandClient, read courseReads, decide func(courseSnapshot) ([]rueidis.Completed, error)) (replies []rueidis.RedisMessage, changed bool, err error) {
	k := c.keys
	defer func() {
		if err != nil { // leave the connection as it was found
			c.s.sendOne(context.WithoutCancel(ctx), conn, conn.B().Unwatch().Build())
		}
	}()
	if err := c.watch(ctx, conn, k.board, k.quizzes); err != nil {
		return nil, false, err
	}
	snap := courseSnapshot{ledgers: map[string]map[string]string{}, shapes: map[string]keyShape{}}
	if read.index {
		if snap.index, err = c.pager(conn, "").fields(ctx, k.quizzes, "*"); err != nil {
			return nil, false, err
		}
		if err := c.readLedgers(ctx, conn, read, &snap); err != nil {
			return nil, false, err
		}
	}
	if read.board {
		if snap.board, err = c.pager(conn, "").sorted(ctx, k.board); err != nil {
			return nil, false, err
		}
	}
	writes, err := decide(snap)
	if err != nil {
		return nil, false, err
	}
	cmds := make([]rueidis.Completed, 0, len(writes)+2)
	cmds = append(append(append(cmds, conn.B().Multi().Build()), writes...), conn.B().Exec().Build())
	res := c.s.send(ctx, conn, cmds...)
	for _, r := range res[:len(res)-1] { // a write refused as it was queued (ACL): EXEC discards them all
		if err := r.Error(); err != nil {
			return nil, false, c.fail(err, "", "", k.board)
		}
	}
	exec := res[len(res)-1]
	if rueidis.IsRedisNil(exec.Error()) {
		return nil, true, nil
	}
	if replies, err = exec.ToArray(); err != nil {
		return nil, false, c.fail(err, "", "", k.board)
	}
	for _, r := range replies {
		if err := r.Error(); err != nil {
			return nil, false, c.fail(err, "", "", k.board)
		}
	}
	if len(writes) > 0 {
		if err := c.s.awaitReplicas(ctx, conn); err != nil {
			return nil, false, c.fail(err, "", "", k.board)
		}
	}
	return replies, changed, nil
}

// watch WATCHes keys on conn, one command each: a moving slot never
// answers TRYAGAIN.
func (c *Course) watch(ctx context.Context, conn rueidis.CommandClient, keys ...string) error {
	cmds := make([]rueidis.Completed, len(keys))
	for i, key := range keys {
		cmds[i] = conn.B().Watch().Key(key).Build()
	}
	for i, res := range c.s.send(ctx, conn, cmds...) {
		if err := res.Error(); err != nil {
			return c.fail(err, "", "", keys[i])
		}
	}
	return nil
}

// readLedgers WATCHes every ledger the snapshot's index lists, reads its
// TYPE and PTTL when read says (Audit, which skips one of the wrong type),
// then the ledgers whole (a missing one as empty).
func (c *Course) readLedgers(ctx context.Context, conn rueidis.CommandClient, read courseReads, snap *courseSnapshot) error {
	fields := slices.Sorted(maps.Keys(snap.index))
	keys := make([]string, len(fields))
	for i, f := range fields {
		quizID, instance, _ := strings.Cut(f, wire.InstanceSeparator)
		keys[i] = c.keys.Ledger(quizID, instance)
	}
	if err := c.watch(ctx, conn, keys...); err != nil {
		return err
	}
	shapes := slices.Repeat([]keyShape{{typ: "hash", ttl: -1}}, len(keys))
	if read.shapes && len(keys) > 0 {
		var err error
		if shapes, err = shapesOf(c.s.send(ctx, conn, shapeReads(conn.B(), keys)...), keys, c.about("", "")); err != nil {
			return err
		}
	}
	for i, f := range fields {
		snap.shapes[f] = shapes[i]
		if shapes[i].fits("hash") {
			var err error
			if snap.ledgers[f], err = c.pager(conn, "").fields(ctx, keys[i], "*"); err != nil {
				return err
			}
		}
	}
	return nil
}

// consistent is snapshot, read again while the course changed under it, up
// to readAttempts times in all, then ErrBusy: exact on a course being
// folded meanwhile, at the cost of reading again.
func (c *Course) consistent(ctx context.Context, read courseReads, decide func(courseSnapshot) ([]rueidis.Completed, error)) ([]rueidis.RedisMessage, error) {
	for attempt := 1; ; attempt++ {
		replies, changed, err := c.snapshot(ctx, read, decide)
		switch {
		case err != nil:
			return nil, err
		case !changed:
			return replies, nil
		case attempt == readAttempts:
			return nil, fmt.Errorf("%w: %s: the course changed each of the %d times it was read", ErrBusy, c.about("", ""), attempt)
		}
	}
}

// CourseRecap is a course's standings and ledger, taken as one consistent
// snapshot: what a school copies elsewhere before the course is purged.
type CourseRecap struct {
	CourseID  string       `json:"course_id"`
	Standings []Standing   `json:"standings"` // the whole board, as Course.Standings reads it
	Quizzes   []CourseQuiz `json:"quizzes"`   // the folded quiz instances, as Course.Quizzes lists them
	Possible  int64        `json:"possible"`  // 10 x the folded instances' questions
	// Entries is the ledger: every (instance, participant) folded with its
	// points, in Quizzes' order of instances, then by participant; enough
	// to fold the course again. It includes the entries of an instance
	// whose Fold or Unfold stopped midway, which Quizzes does not list.
	Entries []CourseEntry `json:"entries"`
	TakenAt time.Time     `json:"taken_at"` // the caller's clock when the snapshot was taken
}

// Recap reads the course whole as one consistent snapshot: the board, the
// quiz index and every ledger it lists, in HSCAN and ZSCAN pages on one
// connection that watches each key, so no step holds the server long, read
// again if a fold changed them meanwhile: O(L + N), L the ledgers' entries.
// It never reads from the client-side cache. Every name comes back byte for
// byte, so the recap archives losslessly in JSON: a board member that is not
// valid UTF-8 (only a raw write makes one) is ErrCorrupt. A course with
// nothing folded is a recap with empty lists. Errors: ErrCorrupt (a key of
// the wrong type, a total that is not sound, an index field, marker or
// ledger entry out of its form), ErrBusy (the course changed each of three
// reads), ErrForbidden.
func (c *Course) Recap(ctx context.Context) (CourseRecap, error) {
	var r CourseRecap
	_, err := c.consistent(ctx, courseReads{index: true, board: true}, func(snap courseSnapshot) ([]rueidis.Completed, error) {
		var err error
		r, err = c.recapOf(snap)
		return nil, err
	})
	return r, err
}

// strict decodes a snapshot's index and ledgers for a reader that takes only
// keys in their form: the first entry, field or marker out of it is
// ErrCorrupt (a ledger of the wrong type failed its read already); an
// instance folded in parts is too when unfinished is set (Repair).
func (c *Course) strict(snap courseSnapshot, unfinished bool) (courseLedger, error) {
	var first error
	bad := func(key, rule, format string, args ...any) {
		if first == nil && (unfinished || rule != "unfinished") {
			first = corrupt(key, format, args...)
		}
	}
	l := decodeIndex(c.keys, snap.index, bad)
	l.decodeLedgers(c.keys, snap.ledgers, bad)
	return l, first
}

// recapOf is the recap of a snapshot.
func (c *Course) recapOf(snap courseSnapshot) (CourseRecap, error) {
	l, err := c.strict(snap, false)
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
// quiz instance, in Quizzes' order, named "<quiz> <start>", start the
// instance's time in UTC, RFC 3339 with milliseconds
// ("kuis-02 2026-12-04T08:00:00.000Z"; the quiz ID alone for NoInstance);
// then one row per participant, in Standings' order, each instance's cell
// the points it gave the participant (0 for one they have no points from).
// opts choose the file's form (ForSpreadsheet); by default names are
// written exactly as stored. It returns w's error as it is.
func (r CourseRecap) WriteCSV(w io.Writer, opts ...CSVOption) error {
	cw := newCSVWriter(w, opts)
	header := []string{"rank", "competition_rank", "participant", "score"}
	column := make(map[[2]string]int, len(r.Quizzes))
	for i, q := range r.Quizzes {
		name := q.QuizID
		if id, ok := wire.ParseID(q.Instance); ok && q.Instance != NoInstance {
			name += " " + id.Time().Format("2006-01-02T15:04:05.000Z07:00")
		}
		header = append(header, name)
		column[[2]string{q.QuizID, q.Instance}] = i
	}
	if err := cw.write(header); err != nil {
		return err
	}
	got := map[string][]int64{}
	for _, e := range r.Entries {
		if i, ok := column[[2]string{e.QuizID, e.Instance}]; ok {
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

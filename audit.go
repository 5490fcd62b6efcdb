package kuis

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// Violation is one way a live key breaks the contract, as Audit finds it.
type Violation struct {
	// Key is the key that breaks the contract.
	Key string `json:"key"`
	// Rule names the broken rule: "exists", "type", "ttl", "field", "judul",
	// "jumlah_soal", "status", "kursus", "kelas", "tampilan", "score",
	// "member", "answer", "log" or "order".
	Rule string `json:"rule"`
	// Detail says what was found, naming the field or member.
	Detail string `json:"detail"`
}

// String formats the violation as "key: rule: detail".
func (v Violation) String() string { return v.Key + ": " + v.Rule + ": " + v.Detail }

// Audit checks the live keys of quiz quizID against the contract and returns
// one Violation per problem, never nil (an empty slice when the quiz keeps the
// contract), in the order it checks: the type and TTL of each key (meta,
// board, answers, log, order), the meta fields (or a missing meta), the
// board's members and scores, the answer members, each participant's score
// against their counted answers (10 each: RecordAnswer is the only way to earn
// points) and the board's members against the log's joins (a member with 0
// points needs a join entry, and a participant with a join entry belongs on
// the board: "score"), the answer log (an entry whose answer is not counted
// or is logged twice, a counted answer without an entry, a participant's
// second join entry or one after their counted answer, an entry after the
// finish entry, a finish entry while the quiz runs), the order set (exactly
// the board's members, placed by their answers and latest logged time, a
// joiner without answers by the time of their join), and last the
// repair keys a Repair that stopped midway leaves. A missing log or order set
// (a quiz written before they existed) is reported too.
//
// It reads in pages, so no step holds the server long: O(N) in all, so run it
// when auditing, not on every request. The pages are read at different
// moments: on a running quiz, an answer counted during the audit can show as
// a violation that is gone when Audit runs again. Errors: ErrInvalidQuizID
// before any I/O, ErrQuizNotFound (none of the quiz's keys exists),
// ErrForbidden.
func (s *Store) Audit(ctx context.Context, quizID string) ([]Violation, error) {
	q, err := s.quiz(quizID)
	if err != nil {
		return nil, err
	}
	a := auditor{q: q, violations: violations{}}
	return a.run(ctx)
}

// auditor collects the violations of one quiz.
type auditor struct {
	q quiz
	violations
	status string // meta's status field as found ("" when missing)
}

// violations collects what an audit finds, in order.
type violations []Violation

func (v *violations) add(key, rule, format string, args ...any) {
	*v = append(*v, Violation{Key: key, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

// complain reports a violation of a key: Audit adds it, a strict reader
// makes the first one its ErrCorrupt.
type complain func(key, rule, format string, args ...any)

// keyShape is a key's TYPE and PTTL.
type keyShape struct {
	typ string
	ttl int64
}

// shapeReads are TYPE and PTTL of each key, in order.
func shapeReads(b rueidis.Builder, keys []string) []rueidis.Completed {
	cmds := make([]rueidis.Completed, 0, 2*len(keys))
	for _, key := range keys {
		cmds = append(cmds, b.Type().Key(key).Build(), b.Pttl().Key(key).Build())
	}
	return cmds
}

// shapesOf decodes the replies of shapeReads(keys), its errors about
// subject.
func shapesOf(res []rueidis.RedisResult, keys []string, subject string) ([]keyShape, error) {
	out := make([]keyShape, len(keys))
	for i, key := range keys {
		var err error
		if out[i].typ, err = res[2*i].ToString(); err != nil {
			return nil, replyError(err, subject, key)
		}
		if out[i].ttl, err = res[2*i+1].AsInt64(); err != nil {
			return nil, replyError(err, subject, key)
		}
	}
	return out, nil
}

// fits reports whether the key is a want (a TYPE reply) or missing.
func (s keyShape) fits(want string) bool { return s.typ == want || s.typ == "none" }

// audit adds the violations of a key of shape s that the contract wants a
// want, without a TTL: "type" and "ttl". A missing key breaks neither.
func (s keyShape) audit(key, want string, add complain) {
	if s.typ == "none" {
		return
	}
	if s.typ != want {
		add(key, "type", "is a %s, want a %s", s.typ, want)
	}
	if s.ttl != -1 {
		add(key, "ttl", "expires in %d ms; the contract allows no TTL", s.ttl)
	}
}

func (a *auditor) run(ctx context.Context) ([]Violation, error) {
	k, c := a.q.keys, a.q.s.client
	want := map[string]string{k.meta: "hash", k.board: "zset", k.answers: "set", k.log: "stream", k.order: "zset"}
	keys := k.quizKeys()
	cmds := append(shapeReads(c.B(), keys), c.B().Exists().Key(k.repairBoard).Build(), c.B().Exists().Key(k.repairOrder).Build())
	res := a.q.s.send(ctx, c, cmds...)
	shapes, err := shapesOf(res, keys, a.q.about(""))
	if err != nil {
		return nil, err
	}
	types := map[string]string{}
	var present int
	for i, key := range keys {
		types[key] = shapes[i].typ
		if shapes[i].typ != "none" {
			present++
		}
		shapes[i].audit(key, want[key], a.add)
	}
	if present == 0 {
		return nil, a.q.errNotFound()
	}
	var leftovers []string
	for i, key := range []string{k.repairBoard, k.repairOrder} {
		n, err := res[2*len(keys)+i].AsInt64()
		if err != nil {
			return nil, a.q.fail(err, "", key)
		}
		if n == 1 {
			leftovers = append(leftovers, key)
		}
	}
	usable := func(key string) bool { return types[key] == want[key] }
	snap, err := a.q.readPages(ctx, c, parts{meta: usable(k.meta), board: usable(k.board), order: usable(k.order),
		answers: usable(k.answers), log: usable(k.log)})
	if err != nil {
		return nil, err
	}
	switch types[k.meta] {
	case "hash":
		a.meta(snap.fields)
	case "none":
		a.add(k.meta, "exists", "missing while other keys of the quiz exist")
	}
	if usable(k.board) {
		a.board(snap.board)
	}
	if !usable(k.answers) && types[k.answers] != "none" {
		return a.violations, nil // an answers key of the wrong type: nothing to compare scores with
	}
	a.answers(&snap)
	counted := snap.count(nil)
	if usable(k.board) || types[k.board] == "none" {
		a.scores(snap.board, counted)
	}
	switch types[k.log] {
	case "stream":
		a.log(&snap, counted)
	case "none":
		if len(counted.answers) > 0 {
			a.add(k.log, "exists", "missing while %d answers are counted: they have no time (written before the answer log)", len(counted.answers))
		}
	}
	switch types[k.order] {
	case "zset":
		if usable(k.board) || types[k.board] == "none" {
			a.order(snap.order, snap.board, counted, usable(k.log))
		}
	case "none":
		if len(snap.board) > 0 {
			a.add(k.order, "exists", "missing while the board has %d members: TiesByTime reads name order until Repair", len(snap.board))
		}
	}
	for _, key := range leftovers {
		a.add(key, "exists", "left by a Repair still rebuilding the board, or one that stopped before it replaced it: the next Repair or PurgeQuiz deletes it")
	}
	return a.violations, nil
}

// optionalMeta are the meta fields a quiz may hold beside judul,
// jumlah_soal and status (revision 5), each with the check of its value.
var optionalMeta = map[string]struct {
	valid func(string) bool
	want  string
}{
	wire.FieldCourse: {validID, "a course ID"},
	wire.FieldClass:  {validID, "a class ID"},
	wire.FieldView: {func(s string) bool { return s == wire.ViewShown || s == wire.ViewHidden || s == wire.ViewAtEnd },
		fmt.Sprintf("%q, %q or %q", wire.ViewShown, wire.ViewHidden, wire.ViewAtEnd)},
}

// meta checks the hash's fields one by one.
func (a *auditor) meta(fields map[string]string) {
	key := a.q.keys.meta
	required := []string{wire.FieldTitle, wire.FieldQuestions, wire.FieldStatus}
	for _, f := range required {
		if _, ok := fields[f]; !ok {
			a.add(key, "field", "field %s is missing", f)
		}
	}
	var extra []string
	for f := range fields {
		if !slices.Contains(required, f) {
			extra = append(extra, f)
		}
	}
	sort.Strings(extra)
	for _, f := range extra {
		switch o, ok := optionalMeta[f]; {
		case !ok:
			a.add(key, "field", "unexpected field %s", quote(f))
		case !o.valid(fields[f]):
			a.add(key, f, "%s is %s, want %s", f, quote(fields[f]), o.want)
		}
	}
	if t, ok := fields[wire.FieldTitle]; ok && !wire.Text(t, maxTitleLen) {
		a.add(key, "judul", "judul %s is not 1 to %d bytes of UTF-8 without control characters", quote(t), maxTitleLen)
	}
	if s, ok := fields[wire.FieldQuestions]; ok {
		if _, ok := wire.Questions(s); !ok {
			a.add(key, "jumlah_soal", "jumlah_soal is %s, want a positive integer of at most %d", quote(s), wire.MaxQuestions)
		}
	}
	if s, ok := fields[wire.FieldStatus]; ok {
		a.status = s
		if s != wire.Running && s != wire.Finished {
			a.add(key, "status", "status is %s, want %q or %q", quote(s), StatusRunning, StatusFinished)
		}
	}
}

// board checks every member and score.
func (a *auditor) board(board []rueidis.ZScore) {
	key := a.q.keys.board
	for _, z := range sortedByName(board) {
		if problem := nameProblem(z.Member); problem != "" {
			a.add(key, "member", "participant %s %s", quote(z.Member), problem)
		}
		if _, ok := wire.Score(z.Score); !ok {
			a.add(key, "score", "member %s has score %s, want a non-negative multiple of 10", quote(z.Member), number(z.Score))
		}
	}
}

// sortedByName is zs in ascending byte order of members.
func sortedByName(zs []rueidis.ZScore) []rueidis.ZScore {
	out := slices.Clone(zs)
	slices.SortFunc(out, func(a, b rueidis.ZScore) int { return strings.Compare(a.Member, b.Member) })
	return out
}

// answers checks every member of the answers set: a pair of a question of
// the quiz and a stored name.
func (a *auditor) answers(s *snapshot) {
	key := a.q.keys.answers
	for _, m := range s.members {
		if _, _, ok := wire.ParsePair(m, s.questions()); ok {
			continue
		}
		q, participant, _ := strings.Cut(m, ":")
		n, valid := wire.Question(q, wire.MaxQuestions)
		switch {
		case !strings.Contains(m, ":") || !valid:
			a.add(key, "answer", "member %s is not <question>:<participant>", quote(m))
		case !wire.StoredName(participant):
			a.add(key, "answer", "member %s names an invalid participant", quote(m))
		default:
			a.add(key, "answer", "member %s answers question %d of %d", quote(m), n, s.questions())
		}
	}
}

// scores reports every participant, on the board, in the answers or joined
// in the log, whose score is not 10 x their counted answers, and every one
// who is on the board without a counted answer or a join entry, or who
// joined and is not on it.
func (a *auditor) scores(board []rueidis.ZScore, counted counting) {
	counts := counted.counts
	scores := make(map[string]int64, len(board))
	for _, z := range board {
		scores[z.Member] = int64(z.Score)
	}
	seen := make(map[string]bool, len(board)+len(counts))
	for p := range scores {
		seen[p] = true
	}
	for p := range counts {
		seen[p] = true
	}
	for p := range counted.joined {
		seen[p] = true
	}
	names := slices.Sorted(maps.Keys(seen))
	key := a.q.keys.board
	for _, p := range names {
		got, onBoard := scores[p]
		switch want := wire.Points * counts[p]; {
		case got != want:
			a.add(key, "score", "member %s has %d points for %d counted answers, want %d", quote(p), got, counts[p], want)
		case onBoard && !counted.onBoard(p):
			a.add(key, "score", "member %s has 0 points and neither a counted answer nor a join entry in the log", quote(p))
		case !onBoard && counted.joined[p]:
			a.add(key, "score", "participant %s has a join entry in the log and is not on the board, want 0 points", quote(p))
		}
	}
}

// log checks every entry against the answers set, and every counted answer
// for an entry.
func (a *auditor) log(s *snapshot, counted counting) {
	key := a.q.keys.log
	pairs := make(map[string]bool, len(s.members))
	for _, m := range s.members {
		pairs[m] = true
	}
	seen := map[string]bool{}
	joined, answered := map[string]string{}, map[string]string{} // participant -> their first join entry, counted answer entry
	finished := ""
	for i, e := range s.log {
		if finished != "" {
			a.add(key, "log", "entry %s follows the finish entry %s", e.ID, finished)
		}
		if e.ID.MS >= wire.PlaceUnit {
			a.add(key, "log", "entry %s is at a time past what an order place holds: the quiz takes no answer after it", e.ID)
		}
		switch {
		case e.err != nil:
			a.add(key, "log", "%v", e.err)
			continue
		case e.Kind == wire.Finish:
			if finished == "" {
				finished = e.ID.String()
			}
			continue
		case e.Kind == wire.Start:
			if i > 0 {
				a.add(key, "log", "start entry %s is not the log's first", e.ID)
			}
			continue
		case e.Kind == wire.Other:
			a.add(key, "log", "entry %s has no valid %s and %s", e.ID, wire.LogParticipant, wire.LogQuestion)
			continue
		case e.Kind == wire.Join:
			// Join writes nothing for a participant on the board: one join
			// entry at most, and never after their answer counted.
			p := e.Participant
			switch {
			case joined[p] != "":
				a.add(key, "log", "entry %s logs the join of %s a second time (first: entry %s)", e.ID, quote(p), joined[p])
			case answered[p] != "":
				a.add(key, "log", "entry %s logs the join of %s after their counted answer in entry %s", e.ID, quote(p), answered[p])
			}
			if joined[p] == "" {
				joined[p] = e.ID.String()
			}
			continue
		}
		pair := e.Pair()
		switch {
		case seen[pair]:
			a.add(key, "log", "entry %s logs answer %s a second time", e.ID, quote(pair))
		case !pairs[pair]:
			a.add(key, "log", "entry %s logs answer %s, which the answers set does not hold", e.ID, quote(pair))
		case answered[e.Participant] == "":
			answered[e.Participant] = e.ID.String()
		}
		seen[pair] = true
	}
	for _, r := range counted.answers {
		if pair := wire.Pair(r.Question, r.Participant); !counted.logged[pair] {
			a.add(key, "log", "answer %s is counted but not logged", quote(pair))
		}
	}
	if finished != "" && a.status == string(StatusRunning) {
		a.add(key, "log", "finish entry %s while the status is %s", finished, StatusRunning)
	}
}

// order checks that the order set places exactly the board's members, each
// by their counted answers and, when the log is usable, the time of the
// latest (the counting's rule).
func (a *auditor) order(order, board []rueidis.ZScore, counted counting, timed bool) {
	key := a.q.keys.order
	scores := scoreMap(board)
	placed := make(map[string]bool, len(order))
	for _, z := range sortedByName(order) {
		placed[z.Member] = true
		n := counted.counts[z.Member]
		count, isPlace := wire.PlaceCount(z.Score)
		switch _, onBoard := scores[z.Member]; {
		case !onBoard:
			a.add(key, "order", "member %s is not on the board", quote(z.Member))
		case timed && z.Score != float64(counted.place(z.Member)):
			a.add(key, "order", "member %s has score %s, want %d for %d answers, the latest at %d ms",
				quote(z.Member), number(z.Score), counted.place(z.Member), n, counted.latest[z.Member])
		case !timed && !isPlace:
			a.add(key, "order", "member %s has score %s, which is no place", quote(z.Member), number(z.Score))
		case !timed && count != n:
			a.add(key, "order", "member %s is placed for %d answers, want %d", quote(z.Member), count, n)
		}
	}
	for _, z := range sortedByName(board) {
		if !placed[z.Member] {
			a.add(key, "order", "board member %s has no place", quote(z.Member))
		}
	}
}

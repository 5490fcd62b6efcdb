package kuis

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/redis/rueidis"
)

// Violation is one way a live key breaks the contract, as Audit finds it.
type Violation struct {
	// Key is the key that breaks the contract.
	Key string `json:"key"`
	// Rule names the broken rule: "exists", "type", "ttl", "field", "judul",
	// "jumlah_soal", "status", "score", "member", "answer", "log" or "order".
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
// points), the answer log (an entry whose answer is not counted or is logged
// twice, a counted answer without an entry, an entry after the finish entry,
// a finish entry while the quiz runs), the order set (exactly the board's
// members, placed by their answers and latest logged time), and last the
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
	a := auditor{q: q, found: []Violation{}, pairs: map[string]bool{}}
	return a.run(ctx)
}

// auditor collects the violations of one quiz.
type auditor struct {
	q      quiz
	found  []Violation
	pairs  map[string]bool // the answers set's well-formed members
	status string          // meta's status field as found ("" when missing)
}

func (a *auditor) add(key, rule, format string, args ...any) {
	a.found = append(a.found, Violation{Key: key, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

func (a *auditor) run(ctx context.Context) ([]Violation, error) {
	k, c := a.q.keys, a.q.s.client
	want := map[string]string{k.meta: "hash", k.board: "zset", k.answers: "set", k.log: "stream", k.order: "zset"}
	keys := k.all()
	cmds := make([]rueidis.Completed, 0, 2*len(keys)+2)
	for _, key := range keys {
		cmds = append(cmds, c.B().Type().Key(key).Build(), c.B().Pttl().Key(key).Build())
	}
	cmds = append(cmds, c.B().Exists().Key(k.repairBoard).Build(), c.B().Exists().Key(k.repairOrder).Build())
	res := send(ctx, c, cmds...)
	types := map[string]string{}
	var present int
	for i, key := range keys {
		t, err := res[2*i].ToString()
		if err != nil {
			return nil, a.q.fail(err, "", key)
		}
		ttl, err := res[2*i+1].AsInt64()
		if err != nil {
			return nil, a.q.fail(err, "", key)
		}
		types[key] = t
		if t == "none" {
			continue
		}
		present++
		if t != want[key] {
			a.add(key, "type", "is a %s, want a %s", t, want[key])
		}
		if ttl != -1 {
			a.add(key, "ttl", "expires in %d ms; the contract allows no TTL", ttl)
		}
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
	var questions int64 // unknown (0) unless meta decodes
	switch types[k.meta] {
	case "hash":
		var err error
		if questions, err = a.meta(ctx); err != nil {
			return nil, err
		}
	case "none":
		a.add(k.meta, "exists", "missing while other keys of the quiz exist")
	}
	var scores map[string]int64 // nil: the board is unusable, so answers are not compared with it
	switch types[k.board] {
	case "zset":
		var err error
		if scores, err = a.board(ctx); err != nil {
			return nil, err
		}
	case "none":
		scores = map[string]int64{}
	}
	counted := map[string]int64{} // no answers set: every score must be 0
	switch types[k.answers] {
	case "set":
		var err error
		if counted, err = a.answers(ctx, questions); err != nil {
			return nil, err
		}
	case "none":
	default:
		return a.found, nil // an answers key of the wrong type: nothing to compare scores with
	}
	if scores != nil {
		a.scores(scores, counted)
	}
	var latest map[string]int64 // nil: no usable log, so the order set's times are not checked
	switch types[k.log] {
	case "stream":
		var err error
		if latest, err = a.log(ctx); err != nil {
			return nil, err
		}
	case "none":
		if len(a.pairs) > 0 {
			a.add(k.log, "exists", "missing while %d answers are counted: they have no time (written before the answer log)", len(a.pairs))
		}
	}
	switch types[k.order] {
	case "zset":
		if scores != nil {
			if err := a.order(ctx, scores, counted, latest); err != nil {
				return nil, err
			}
		}
	case "none":
		if len(scores) > 0 {
			a.add(k.order, "exists", "missing while the board has %d members: TiesByTime reads name order until Repair", len(scores))
		}
	}
	for _, key := range leftovers {
		a.add(key, "exists", "left by a Repair still rebuilding the board, or one that stopped before it replaced it: the next Repair or PurgeQuiz deletes it")
	}
	return a.found, nil
}

// log checks every entry against the answers set, and every counted answer
// for an entry, and returns each participant's latest time.
func (a *auditor) log(ctx context.Context) (map[string]int64, error) {
	key := a.q.keys.log
	latest := map[string]int64{}
	logged := map[string]bool{}
	finished := ""
	first := true // the start entry must be the log's first
	_, err := a.q.readLog(ctx, a.q.s.client, nil, func(e logEntry, err error) error {
		defer func() { first = false }()
		if finished != "" {
			a.add(key, "log", "entry %s follows the finish entry %s", e.id, finished)
		}
		switch {
		case err != nil:
			a.add(key, "log", "%v", err)
			return nil
		case e.kind == entryFinish:
			if finished == "" {
				finished = e.id.String()
			}
			return nil
		case e.kind == entryStart:
			if !first {
				a.add(key, "log", "start entry %s is not the log's first", e.id)
			}
			first = false
			return nil
		case e.kind == entryOther:
			a.add(key, "log", "entry %s has no valid %s and %s", e.id, logParticipant, logQuestion)
			return nil
		}
		pair := e.pair()
		switch {
		case logged[pair]:
			a.add(key, "log", "entry %s logs answer %s a second time", e.id, quote(pair))
			return nil
		case !a.pairs[pair]:
			a.add(key, "log", "entry %s logs answer %s, which the answers set does not hold", e.id, quote(pair))
			return nil
		}
		// Only the first entry of a counted answer places its participant.
		logged[pair] = true
		latest[e.participant] = int64(e.id.ms)
		return nil
	})
	if err != nil {
		return nil, err
	}
	unlogged := make([]string, 0, len(a.pairs))
	for pair := range a.pairs {
		if !logged[pair] {
			unlogged = append(unlogged, pair)
		}
	}
	sort.Strings(unlogged)
	for _, pair := range unlogged {
		a.add(key, "log", "answer %s is counted but not logged", quote(pair))
	}
	if finished != "" && a.status == string(StatusRunning) {
		a.add(key, "log", "finish entry %s while the status is %s", finished, StatusRunning)
	}
	return latest, nil
}

// order checks that the order set places exactly the board's members, each
// by their counted answers and, when the log is usable, its latest time.
func (a *auditor) order(ctx context.Context, scores, counted, latest map[string]int64) error {
	key := a.q.keys.order
	zs, err := a.q.scanSorted(ctx, a.q.s.client, key)
	if err != nil {
		return err
	}
	placed := make(map[string]bool, len(zs))
	for _, z := range zs {
		placed[z.Member] = true
		n := counted[z.Member]
		switch _, onBoard := scores[z.Member]; {
		case !onBoard:
			a.add(key, "order", "member %s is not on the board", quote(z.Member))
		case latest != nil && z.Score != float64(orderPlace(n, latest[z.Member])):
			a.add(key, "order", "member %s has score %.0f, want %d for %d answers, the latest at %d ms",
				quote(z.Member), z.Score, orderPlace(n, latest[z.Member]), n, latest[z.Member])
		case latest == nil && int64(z.Score)/orderUnit != min(n, 2047):
			a.add(key, "order", "member %s is placed for %d answers, want %d", quote(z.Member), int64(z.Score)/orderUnit, n)
		}
	}
	names := make([]string, 0, len(scores))
	for p := range scores {
		if !placed[p] {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	for _, p := range names {
		a.add(key, "order", "board member %s has no place", quote(p))
	}
	return nil
}

// meta checks the hash's fields and returns jumlah_soal (0 if invalid).
func (a *auditor) meta(ctx context.Context) (int64, error) {
	key := a.q.keys.meta
	fields, err := sendOne(ctx, a.q.s.client, a.q.s.client.B().Hgetall().Key(key).Build()).AsStrMap()
	if err != nil {
		return 0, a.q.fail(err, "", key)
	}
	for _, f := range metaFields {
		if _, ok := fields[f]; !ok {
			a.add(key, "field", "field %s is missing", f)
		}
	}
	var extra []string
	for f := range fields {
		if f != fieldTitle && f != fieldQuestions && f != fieldStatus {
			extra = append(extra, f)
		}
	}
	sort.Strings(extra)
	for _, f := range extra {
		a.add(key, "field", "unexpected field %s", quote(f))
	}
	if t, ok := fields[fieldTitle]; ok && !validText(t, maxTitleLen) {
		a.add(key, "judul", "judul %s is not 1 to %d bytes of UTF-8 without control characters", quote(t), maxTitleLen)
	}
	var questions int64
	if s, ok := fields[fieldQuestions]; ok {
		n, err := decodeQuestions(key, s)
		if err != nil {
			a.add(key, "jumlah_soal", "jumlah_soal is %s, want a positive integer", quote(s))
		}
		questions = n
	}
	if s, ok := fields[fieldStatus]; ok {
		a.status = s
		if _, err := decodeStatus(key, s); err != nil {
			a.add(key, "status", "status is %s, want %q or %q", quote(s), StatusRunning, StatusFinished)
		}
	}
	return questions, nil
}

// board checks every member and score and returns the scores.
func (a *auditor) board(ctx context.Context) (map[string]int64, error) {
	key := a.q.keys.board
	zs, err := a.q.scanSorted(ctx, a.q.s.client, key)
	if err != nil {
		return nil, err
	}
	scores := make(map[string]int64, len(zs))
	for _, z := range zs {
		if problem := nameProblem(z.Member); problem != "" {
			a.add(key, "member", "participant %s %s", quote(z.Member), problem)
		}
		if _, err := decodeScore(key, z.Member, z.Score); err != nil {
			a.add(key, "score", "member %s has score %s, want a non-negative multiple of 10", quote(z.Member), number(z.Score))
		}
		scores[z.Member] = int64(z.Score)
	}
	return scores, nil
}

// answers checks every answer member and returns how many answers of each
// participant are counted. questions is 0 when meta is unusable.
func (a *auditor) answers(ctx context.Context, questions int64) (map[string]int64, error) {
	key := a.q.keys.answers
	members, err := a.q.scanMembers(ctx, a.q.s.client, key)
	if err != nil {
		return nil, err
	}
	sort.Strings(members)
	counted := map[string]int64{}
	for _, m := range members {
		q, participant, ok := strings.Cut(m, ":")
		n, err := strconv.ParseInt(q, 10, 64)
		switch {
		case !ok || err != nil || n < 1 || strconv.FormatInt(n, 10) != q:
			a.add(key, "answer", "member %s is not <question>:<participant>", quote(m))
			continue
		case !validText(participant, maxStoredName):
			a.add(key, "answer", "member %s names an invalid participant", quote(m))
			continue
		case questions > 0 && n > questions:
			a.add(key, "answer", "member %s answers question %d of %d", quote(m), n, questions)
		}
		counted[participant]++
		a.pairs[m] = true
	}
	return counted, nil
}

// scores reports every participant, on the board or in the answers, whose
// score is not 10 x their counted answers.
func (a *auditor) scores(scores, counted map[string]int64) {
	names := make([]string, 0, len(scores)+len(counted))
	for p := range scores {
		names = append(names, p)
	}
	for p := range counted {
		if _, ok := scores[p]; !ok {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	for _, p := range names {
		if got, want := scores[p], 10*counted[p]; got != want {
			a.add(a.q.keys.board, "score", "member %s has %d points for %d counted answers, want %d",
				quote(p), got, counted[p], want)
		}
	}
}

package kuis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kuisboard/kuis/internal/script"
	"github.com/kuisboard/kuis/internal/wire"
	"github.com/redis/rueidis"
)

// Erasure is what an erasure removed, and where: a participant found on no
// key is an Erasure with empty lists.
type Erasure struct {
	Participant string          `json:"participant"`
	Quizzes     []QuizErasure   `json:"quizzes"` // by quiz ID
	Courses     []CourseErasure `json:"courses"` // by course ID
	Classes     []ClassErasure  `json:"classes"` // by class ID
}

// nothingErased is the Erasure of who before anything is erased.
func nothingErased(who string) Erasure {
	return Erasure{Participant: who, Quizzes: []QuizErasure{}, Courses: []CourseErasure{}, Classes: []ClassErasure{}}
}

// Empty reports whether the erasure removed nothing.
func (e Erasure) Empty() bool { return len(e.Quizzes)+len(e.Courses)+len(e.Classes) == 0 }

// QuizErasure is what an erasure removed from one quiz.
type QuizErasure struct {
	QuizID  string `json:"quiz_id"`
	Points  int64  `json:"points"`  // their board score; 0 when the board did not hold them
	Answers int64  `json:"answers"` // members of the answers set
	Entries int64  `json:"entries"` // log entries: their answers and their join
}

// CourseErasure is what an erasure removed from one course.
type CourseErasure struct {
	CourseID string `json:"course_id"`
	Points   int64  `json:"points"` // taken off their total
	// Instances are the index fields "<quiz>@<instance>" of the ledgers
	// that held them, in byte order.
	Instances []string `json:"instances"`
}

// ClassErasure is one class roster an erasure withdrew the participant
// from.
type ClassErasure struct {
	ClassID   string `json:"class_id"`
	StudentID string `json:"student_id"`
}

// Erase removes participant from every quiz, course and class roster of the
// namespace, so that a school can honour a request to delete a student's
// data: from each quiz its board member, its order-set place, its answers-set
// pairs and its log entries (answers and join, removed with XDEL, so that
// the log stays the record of what is counted); from each course its ledger
// entries, with each instance's marker rewritten to the ledger left (its
// participants, points and digest, which is then the digest of the recap
// without them, Recap.Without), and its total; from each class the student
// whose name it is. Everyone else's scores, places, entries, totals and
// fields stay as they were, Audit of each is as clean as before and Repair
// finds nothing to change. A participant on no key is an empty Erasure, no
// error.
//
// It first lists the namespace's keys (SCAN on every primary, as Purge) and
// reads, without writing, where the participant is, so that it refuses
// before writing anything when a primary does not answer (ErrUnavailable)
// or when a running quiz holds them (ErrQuizRunning, naming every such
// quiz): their next answer would count again. Then it erases quiz by quiz,
// ledger by ledger and roster by roster, each in one atomic step; a call
// cut short (a cancelled ctx, a node lost midway) returns what it erased
// with the error, and a call again completes it: Erase is idempotent. An
// answer counted after the read (a quiz started meanwhile) is a new trace.
// A recap archived before the erasure still names them, and a fold of it
// would bring them back: rewrite archives too (kuis erase -archive).
//
// Complexity: O(K) for the listing, K the keys of the database; O(1) per
// quiz, course and class to find them, O(S + L) for each quiz that holds
// them (S its questions, L its log entries, read in pages), O(M + Q) for
// each ledger that holds them (M its entries, Q the course's instances).
// The operator erases (ACLRules(RoleOperator)). Errors: ErrInvalidParticipant
// before any I/O, ErrUnavailable, ErrQuizRunning, ErrForbidden, ErrCorrupt (a
// key of the wrong type, a marker or ledger value out of its form), ErrBusy
// (a ledger changed each of three reads); with WithReplicas,
// ErrNotReplicated.
func (s *Store) Erase(ctx context.Context, participant string) (Erasure, error) {
	if err := checkParticipant(participant, func(string) string { return "erasure" }); err != nil {
		return nothingErased(participant), err
	}
	inv, err := s.inventory(ctx)
	if err != nil {
		return nothingErased(participant), err
	}
	return s.erase(ctx, erasing{who: participant, quizzes: inv.quizzes, courses: inv.courses, classes: inv.classes})
}

// Erase looks the student up by ID and erases them as Store.Erase does,
// but only where this class is concerned: from the quizzes whose meta names
// the class (kelas), from the ledgers of those quiz instances in every
// course (a total keeps what other quizzes gave them), and from this
// roster, last, so that a call cut short finds the student again. A name is
// not a person: another class's student of the same name keeps their
// quizzes. A quiz purged before the erasure, or an earlier instance of a
// quiz ID, is known to a course without its class: its ledger keeps the
// student (Store.Erase reaches it). A student ID
// not on the roster is an empty Erasure, no error. Errors: those of
// Store.Erase, and ErrInvalidStudent before any I/O.
func (c *Class) Erase(ctx context.Context, studentID string) (Erasure, error) {
	st, err := c.Student(ctx, studentID)
	if errors.Is(err, ErrNotEnrolled) {
		return nothingErased(""), nil
	}
	if err != nil {
		return nothingErased(""), err
	}
	inv, err := c.s.inventory(ctx)
	if err != nil {
		return nothingErased(st.Name), err
	}
	return c.s.erase(ctx, erasing{who: st.Name, quizzes: inv.quizzes, courses: inv.courses, classes: []string{c.keys.classID},
		class: c.keys.classID})
}

// namespaceKeys are the IDs of the quizzes (by meta), courses and classes
// whose keys a namespace holds, each sorted.
type namespaceKeys struct{ quizzes, courses, classes []string }

// inventory lists the namespace's quizzes, courses and classes with one
// SCAN of every primary: O(K).
func (s *Store) inventory(ctx context.Context) (namespaceKeys, error) {
	n := s.opts.naming
	quizzes, courses, classes := map[string]bool{}, map[string]bool{}, map[string]bool{}
	// The objects whose keys name each: a quiz by its meta, a course and a
	// class by any of their keys but a ledger.
	objects := map[string]map[string]bool{"meta": quizzes, "kursus": courses, "kursus-kuis": courses,
		"kelas": classes, "kelas-nama": classes, "kelas-mirip": classes}
	err := s.scanner().Scan(ctx, n.namespace+":*", func(keys []string) error {
		for _, k := range keys {
			object, _, _ := strings.Cut(strings.TrimPrefix(k, n.namespace+":"), ":")
			if ids, ok := objects[object]; ok {
				if id, ok := idAfter(k, n.namespace+":"+object+":", n.hashTag); ok {
					ids[id] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return namespaceKeys{}, replyError(err, "key list of namespace "+quote(n.namespace), "")
	}
	sorted := func(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }
	return namespaceKeys{quizzes: sorted(quizzes), courses: sorted(courses), classes: sorted(classes)}, nil
}

// erasing is what one erasure covers.
type erasing struct {
	who                       string
	quizzes, courses, classes []string
	class                     string // Class.Erase's: only its quizzes, and their ledgers
}

// quizFound is a quiz that holds the participant, as read before erasing.
type quizFound struct {
	q       *quiz
	running bool
	answers []string // the answers set's members naming them
}

// courseFound is a course that holds the participant, as read before
// erasing.
type courseFound struct {
	c       *Course
	ledgers []string // the index fields of the ledgers that hold them
}

// erase finds, then erases.
func (s *Store) erase(ctx context.Context, e erasing) (Erasure, error) {
	out := nothingErased(e.who)
	quizzes, classInstances, err := s.findInQuizzes(ctx, e)
	if err != nil {
		return out, err
	}
	var running []string
	for _, f := range quizzes {
		if f.running {
			running = append(running, quote(f.q.keys.quizID))
		}
	}
	if len(running) > 0 {
		return out, fmt.Errorf("%w: erasure of %s: quiz %s holds them, and their next answer would count again; nothing erased",
			ErrQuizRunning, quote(e.who), strings.Join(running, ", "))
	}
	courses, err := s.findInCourses(ctx, e, classInstances)
	if err != nil {
		return out, err
	}
	students, err := s.findInClasses(ctx, e)
	if err != nil {
		return out, err
	}
	for _, f := range quizzes {
		done, err := f.erase(ctx, e.who)
		if err != nil {
			return out, err
		}
		out.Quizzes = append(out.Quizzes, done)
	}
	for _, f := range courses {
		done, err := f.erase(ctx, e.who, e.class == "")
		if done.Points != 0 || len(done.Instances) > 0 {
			out.Courses = append(out.Courses, done)
		}
		if err != nil {
			return out, err
		}
	}
	for _, st := range students {
		if err := st.class.Withdraw(ctx, st.id); err != nil {
			return out, err
		}
		out.Classes = append(out.Classes, ClassErasure{ClassID: st.class.keys.classID, StudentID: st.id})
	}
	return out, nil
}

// findInQuizzes reads, in two pipelined rounds over every quiz (only
// e.class's with Class.Erase), which hold the participant: on the board, in
// the order set or in the answers set. With Class.Erase it also returns the
// index fields "<quiz>@<instance>" of the class's quizzes, each instance the
// ID of its log's first entry (Recap.Instance), so that a course's ledger of
// another instance of a quiz ID is left.
func (s *Store) findInQuizzes(ctx context.Context, e erasing) ([]quizFound, map[string]bool, error) {
	qs := make([]*quiz, 0, len(e.quizzes))
	for _, id := range e.quizzes {
		if q, err := s.quiz(id); err == nil {
			qs = append(qs, &q)
		}
	}
	b := s.client.B()
	each := 3 // reads a quiz: meta, board, order set, and with Class.Erase the log's first entry
	if e.class != "" {
		each = 4
	}
	reads := make(rueidis.Commands, 0, each*len(qs))
	for _, q := range qs {
		k := q.keys
		reads = append(reads, b.Hgetall().Key(k.meta).Build(), b.Zscore().Key(k.board).Member(e.who).Build(),
			b.Zscore().Key(k.order).Member(e.who).Build())
		if e.class != "" {
			reads = append(reads, b.Xrange().Key(k.log).Start("-").End("+").Count(1).Build())
		}
	}
	res := s.send(ctx, s.client, reads...)
	type candidate struct {
		quizFound
		placed bool     // on the board or in the order set
		pairs  []string // every answers set member that could name them
	}
	var cands []candidate
	instances := map[string]bool{}
	reads = reads[:0]
	for i, q := range qs {
		meta, err := res[each*i].AsStrMap()
		if err != nil {
			return nil, nil, q.fail(err, "", q.keys.meta)
		}
		if e.class != "" {
			if meta[wire.FieldClass] != e.class {
				continue
			}
			first, err := res[each*i+3].AsXRange()
			if err != nil {
				return nil, nil, q.fail(err, "", q.keys.log)
			}
			instance := NoInstance
			if len(first) > 0 {
				instance = first[0].ID
			}
			instances[wire.IndexField(q.keys.quizID, instance)] = true
		}
		c := candidate{quizFound: quizFound{q: q, running: meta[wire.FieldStatus] == wire.Running}}
		for j, key := range []string{q.keys.board, q.keys.order} {
			if _, err := res[each*i+1+j].AsFloat64(); err == nil {
				c.placed = true
			} else if !rueidis.IsRedisNil(err) {
				return nil, nil, q.fail(err, e.who, key)
			}
		}
		n, ok := wire.Questions(meta[wire.FieldQuestions])
		if !ok {
			n = wire.MaxQuestions // a meta out of its form: every pair a quiz can hold
		}
		c.pairs = make([]string, n)
		for j := range c.pairs {
			c.pairs[j] = wire.Pair(j+1, e.who)
		}
		cands = append(cands, c)
		reads = append(reads, b.Smismember().Key(q.keys.answers).Member(c.pairs...).Build())
	}
	res = s.send(ctx, s.client, reads...)
	var out []quizFound
	for i := range cands {
		c := &cands[i]
		in, err := res[i].ToArray()
		if err != nil {
			return nil, nil, c.q.fail(err, e.who, c.q.keys.answers)
		}
		for j, m := range in {
			if n, _ := m.AsInt64(); n == 1 && j < len(c.pairs) {
				c.answers = append(c.answers, c.pairs[j])
			}
		}
		if c.placed || len(c.answers) > 0 {
			out = append(out, c.quizFound)
		}
	}
	return out, instances, nil
}

// erase removes the participant from the quiz: it reads the log in pages
// for their entries, then runs erase.lua.
func (f quizFound) erase(ctx context.Context, who string) (QuizErasure, error) {
	q, k := f.q, f.q.keys
	var ids []string
	start := "-"
	for {
		entries, err := q.s.sendOne(ctx, q.s.client, q.s.client.B().Xrange().Key(k.log).Start(start).End("+").
			Count(q.s.tune.pageSize).Build()).AsXRange()
		if err != nil {
			return QuizErasure{}, q.fail(err, who, k.log)
		}
		for _, en := range entries {
			if en.FieldValues[wire.LogParticipant] == who {
				ids = append(ids, en.ID)
			}
		}
		if int64(len(entries)) < q.s.tune.pageSize {
			break
		}
		last, ok := wire.ParseID(entries[len(entries)-1].ID)
		next, more := last.Next()
		if !ok || !more {
			break
		}
		start = next.String()
	}
	args := append(append([]string{who, strconv.Itoa(len(f.answers))}, f.answers...), ids...)
	reply, err := q.s.runScriptWrote(ctx, script.Erase, quizErased, rueidis.LuaExec{Keys: k.quizKeys(), Args: args})[0].ToArray()
	if err != nil {
		return QuizErasure{}, q.fail(err, who, k.board)
	}
	out := QuizErasure{QuizID: k.quizID}
	if len(reply) != 4 {
		return out, fmt.Errorf("kuis: %s: erase reply of %d elements, want 4", q.about(who), len(reply))
	}
	score, err0 := reply[0].ToString()
	answers, err1 := reply[1].AsInt64()
	entries, err2 := reply[2].AsInt64()
	if err := errors.Join(err0, err1, err2); err != nil {
		return out, fmt.Errorf("kuis: %s: erase reply: %w", q.about(who), err)
	}
	out.Answers, out.Entries = answers, entries
	if score != "" {
		v, err := strconv.ParseFloat(score, 64)
		if err != nil {
			return out, fmt.Errorf("kuis: %s: erase reply score %q", q.about(who), score)
		}
		out.Points = wasScore(v)
	}
	return out, nil
}

// quizErased tells from an erase.lua reply whether it removed anything: a
// run that removed nothing is not waited for with WithReplicas.
func quizErased(m rueidis.RedisMessage) bool {
	a, err := m.ToArray()
	if err != nil || len(a) != 4 {
		return true
	}
	score, _ := a[0].ToString()
	n1, _ := a[1].AsInt64()
	n2, _ := a[2].AsInt64()
	n3, _ := a[3].AsInt64()
	return score != "" || n1+n2+n3 > 0
}

// findInCourses reads which courses hold the participant: on the board, or
// in the ledger of an instance (only of classInstances with Class.Erase,
// and then a board member alone is not theirs).
func (s *Store) findInCourses(ctx context.Context, e erasing, classInstances map[string]bool) ([]courseFound, error) {
	var out []courseFound
	b := s.client.B()
	for _, id := range e.courses {
		c, err := s.Course(id)
		if err != nil {
			continue
		}
		k := c.keys
		index, err := c.pager(s.client, "").fields(ctx, k.quizzes, "*")
		if err != nil {
			return nil, err
		}
		var fields []string
		for _, field := range slices.Sorted(maps.Keys(index)) {
			if _, _, ok := wire.ParseIndexField(field); ok && (e.class == "" || classInstances[field]) {
				fields = append(fields, field)
			}
		}
		reads := rueidis.Commands{b.Zscore().Key(k.board).Member(e.who).Build()}
		for _, field := range fields {
			reads = append(reads, b.Hexists().Key(k.ledgers+field).Field(e.who).Build())
		}
		res := s.send(ctx, s.client, reads...)
		f := courseFound{c: c}
		_, err = res[0].AsFloat64()
		placed := err == nil && e.class == ""
		if err != nil && !rueidis.IsRedisNil(err) {
			return nil, c.fail(err, "", "", k.board)
		}
		for i, field := range fields {
			held, err := res[i+1].AsBool()
			if err != nil {
				return nil, c.fail(err, "", "", k.ledgers+field)
			}
			if held {
				f.ledgers = append(f.ledgers, field)
			}
		}
		if placed || len(f.ledgers) > 0 {
			out = append(out, f)
		}
	}
	return out, nil
}

// erase removes the participant from each ledger that held them, then,
// with whole, from the board if it still holds them and no ledger does (a
// member the ledgers never held).
func (f courseFound) erase(ctx context.Context, who string, whole bool) (CourseErasure, error) {
	out := CourseErasure{CourseID: f.c.keys.courseID, Instances: []string{}}
	for _, field := range f.ledgers {
		points, held, err := f.c.eraseFrom(ctx, who, field)
		if err != nil {
			return out, err
		}
		if held {
			out.Points += points
			out.Instances = append(out.Instances, field)
		}
	}
	if !whole {
		return out, nil
	}
	k := f.c.keys
	_, err := f.c.s.sendOne(ctx, f.c.s.client, f.c.s.client.B().Zscore().Key(k.board).Member(who).Build()).AsFloat64()
	if rueidis.IsRedisNil(err) {
		return out, nil
	} else if err != nil {
		return out, f.c.fail(err, "", "", k.board)
	}
	points, _, err := f.c.eraseFrom(ctx, who, "")
	out.Points += points
	return out, err
}

// eraseFrom takes the participant out of the ledger of index field field
// ("" for none: only a board member no ledger holds goes) in one run of
// course.lua: it reads the marker and the whole ledger, writes the marker
// of the ledger without them, and reads again when a fold changed the
// marker meanwhile. It returns the points taken off their total and whether
// the ledger held them.
func (c *Course) eraseFrom(ctx context.Context, who, field string) (points int64, held bool, err error) {
	k := c.keys
	quizID, instance, _ := wire.ParseIndexField(field)
	ledger := k.ledgers + field
	if field == "" {
		ledger = k.Ledger("-", NoInstance) // in the course's slot, never written
	}
	for range readAttempts {
		read, write := "", ""
		if field != "" {
			raw, err := c.s.sendOne(ctx, c.s.client, c.s.client.B().Hget().Key(k.quizzes).Field(field).Build()).ToString()
			if rueidis.IsRedisNil(err) {
				return 0, false, nil // unfolded meanwhile
			} else if err != nil {
				return 0, false, c.fail(err, quizID, instance, k.quizzes)
			}
			m, ok := wire.ParseMarker(raw)
			if !ok {
				return 0, false, corrupt(k.quizzes, "field %s holds %s, not a marker", quote(field), quote(raw))
			}
			entries, err := c.pager(c.s.client, quizID).fields(ctx, ledger, "*")
			if err != nil {
				return 0, false, err
			}
			mine, ok := entries[who]
			if !ok {
				return 0, false, nil
			}
			p, ok := wire.ParseLedgerPoints(mine)
			if !ok {
				return 0, false, corrupt(ledger, "field %s holds %s, want a multiple of 10", quote(who), quote(mine))
			}
			delete(entries, who)
			pairs := make([][2]string, 0, len(entries))
			for _, name := range slices.Sorted(maps.Keys(entries)) {
				pairs = append(pairs, [2]string{name, entries[name]})
			}
			read = raw
			m.Participants, m.Points = max(m.Participants-1, 0), max(m.Points-p, 0)
			m.Digest = wire.RecapDigest(quizID, instance, m.Possible, pairs)
			write = m.String()
		}
		args := []string{"erase", field, k.ledgers, who, read, write}
		reply, err := c.s.runScriptWrote(ctx, script.Course, unfoldWrote, rueidis.LuaExec{Keys: []string{k.board, k.quizzes, ledger},
			Args: args})[0].AsStrSlice()
		var ce *ConflictError
		if errors.As(c.fail(err, quizID, instance, ledger), &ce) && ce.Reason == ConflictRecap {
			continue
		}
		if err != nil {
			return 0, false, c.fail(err, quizID, instance, ledger)
		}
		if len(reply) != 3 {
			return 0, false, fmt.Errorf("kuis: %s: erase reply of %d elements, want 3", c.about(quizID, who), len(reply))
		}
		if reply[1] == "" {
			return 0, field != "", nil
		}
		was, err1 := strconv.ParseFloat(reply[1], 64)
		now, err2 := strconv.ParseInt(reply[2], 10, 64)
		if err1 != nil || err2 != nil {
			return 0, false, fmt.Errorf("kuis: %s: erase reply %q", c.about(quizID, who), reply)
		}
		return wasScore(was) - now, field != "", nil
	}
	return 0, false, fmt.Errorf("%w: %s: the instance's marker changed each of the %d times it was read", ErrBusy, c.about(quizID, who), readAttempts)
}

// studentFound is a class roster's student whose name is the participant.
type studentFound struct {
	class *Class
	id    string
}

// findInClasses reads which rosters enroll the participant's name, by the
// roster turned around (name = student ID): one pipelined round.
func (s *Store) findInClasses(ctx context.Context, e erasing) ([]studentFound, error) {
	var classes []*Class
	reads := rueidis.Commands{}
	for _, id := range e.classes {
		if c, err := s.Class(id); err == nil {
			classes = append(classes, c)
			reads = append(reads, s.client.B().Hget().Key(c.keys.names).Field(e.who).Build())
		}
	}
	var out []studentFound
	for i, r := range s.send(ctx, s.client, reads...) {
		id, err := r.ToString()
		switch {
		case rueidis.IsRedisNil(err):
		case err != nil:
			return nil, classes[i].fail(err, "", classes[i].keys.names)
		default:
			out = append(out, studentFound{class: classes[i], id: id})
		}
	}
	return out, nil
}

// Without returns the recap as a Recap of the quiz made after
// Store.Erase(participant) would read: their standing, answers and counts
// gone, every other standing ranked again in the same order (Rank 1 to N,
// equal scores sharing a CompetitionRank). A fold of it matches the course
// the erasure rewrote (the same digest), so that an archived recap rewritten
// with it never brings them back. It does no I/O.
func (r Recap) Without(participant string) Recap {
	out := r
	out.Standings = without(r.Standings, participant)
	out.Answers = make([]AnswerRecord, 0, len(r.Answers))
	out.Questions = slices.Clone(r.Questions)
	for _, a := range r.Answers {
		if a.Participant != participant {
			out.Answers = append(out.Answers, a)
		} else if i := a.Question - 1; i >= 0 && i < len(out.Questions) && out.Questions[i].Question == a.Question {
			out.Questions[i].Correct--
		}
	}
	return out
}

// Without returns the course recap as Course.Recap would read it after
// Store.Erase(participant): their standing and ledger entries gone, each
// instance's participants and points without theirs, an instance left with
// no entry gone from Quizzes and Possible as its index field goes, and every
// other standing ranked again. It does no I/O.
func (r CourseRecap) Without(participant string) CourseRecap {
	out := r
	out.Standings = without(r.Standings, participant)
	out.Entries = make([]CourseEntry, 0, len(r.Entries))
	taken := map[[2]string]int64{}
	for _, e := range r.Entries {
		if e.Participant == participant {
			taken[[2]string{e.QuizID, e.Instance}] = e.Points
		} else {
			out.Entries = append(out.Entries, e)
		}
	}
	out.Quizzes = make([]CourseQuiz, 0, len(r.Quizzes))
	for _, q := range r.Quizzes {
		if points, ok := taken[[2]string{q.QuizID, q.Instance}]; ok {
			q.Participants, q.Points = q.Participants-1, q.Points-points
			if q.Participants <= 0 {
				out.Possible -= wire.Points * q.Questions
				continue
			}
		}
		out.Quizzes = append(out.Quizzes, q)
	}
	return out
}

// without is standings without participant's, ranked again in their order.
func without(standings []Standing, participant string) []Standing {
	out := make([]Standing, 0, len(standings))
	for _, s := range standings {
		if s.Participant == participant {
			continue
		}
		s.Rank = len(out) + 1
		if len(out) > 0 && out[len(out)-1].Score == s.Score {
			s.CompetitionRank = out[len(out)-1].CompetitionRank
		} else {
			s.CompetitionRank = s.Rank
		}
		out = append(out, s)
	}
	return out
}

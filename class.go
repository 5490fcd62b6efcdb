package kuis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	names "github.com/kuisboard/kuis/internal/name"
	"github.com/kuisboard/kuis/internal/script"
	"github.com/redis/rueidis"
)

// Class is the handle on one class's roster, from [Store.Class]: the
// students a school knows, each by a stable ID (the one grades go to) and a
// name that is theirs alone in the class, the name they go by on boards.
// Three hashes hold it, kept in step by the roster's scripts: the roster
// (ID = name), the names (name = ID, for Lookup) and the look-alikes (a
// name's confusable key = ID, so that no two names a class would take for
// one another are enrolled). It is safe for concurrent use.
//
// A class has no meta: one with nobody enrolled reads as empty. Nothing on
// the answer path reads a roster: a quiz names its class ([ForClass]) for
// its grades, and only grades join a board with a roster, by the board's
// stored name. The teacher enrolls and withdraws (ACLRules(RoleTeacher));
// every role reads; the teacher and the operator audit; the operator
// deletes the keys with Purge. A key of the wrong type is ErrCorrupt; a call
// the ACL user may not make is ErrForbidden, with nothing written.
type Class struct {
	s    *Store
	keys ClassKeys
}

// Class returns the handle on class classID's roster. A class ID follows the
// quiz ID rule: 1 to 64 bytes of ASCII letters, digits, '-', '_' or '.'
// (ErrInvalidClassID otherwise). It does no I/O.
func (s *Store) Class(classID string) (*Class, error) {
	if err := checkID(ErrInvalidClassID, "", classID); err != nil {
		return nil, err
	}
	return &Class{s: s, keys: classKeyNames(s.opts.naming, classID)}, nil
}

// Keys returns the class's key names. It does no I/O.
func (c *Class) Keys() ClassKeys { return c.keys }

// about is the subject of the class's error messages: the class, and the
// student when there is one.
func (c *Class) about(studentID string) string {
	s := "class " + quote(c.keys.classID)
	if studentID != "" {
		s += ", student " + quote(studentID)
	}
	return s
}

// maxStudentID bounds a student ID, in bytes.
const maxStudentID = 64

// maxRosterCall bounds the students of one Enroll or Withdraw: one script
// that holds the server for milliseconds.
const maxRosterCall = 5000

// studentIDProblem says what breaks the student ID rule in id, or "".
func studentIDProblem(id string) string {
	if id == "" || len(id) > maxStudentID {
		return fmt.Sprintf("is %d bytes long", len(id))
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c == ' ':
			return fmt.Sprintf("holds a space at byte %d", i+1)
		case c < ' ' || c == 0x7f:
			return fmt.Sprintf("holds the control byte 0x%02x at byte %d", c, i+1)
		case c > 0x7f:
			return fmt.Sprintf("holds the byte 0x%02x, which is not ASCII, at byte %d", c, i+1)
		}
	}
	return ""
}

// studentIDRule is the student ID rule, as error messages end with it.
const studentIDRule = "want 1 to 64 bytes of printable ASCII without spaces"

// CleanStudent returns s as Class.Enroll stores it, or an error that
// errors.Is ErrInvalidStudent and says which field breaks the rule and at
// which character. It does no I/O; Enroll calls it for each student, and a
// service that reads a roster file calls it to point at the bad line before
// it enrolls anything.
//
// The ID is 1 to 64 bytes of printable ASCII without spaces (U+0021 to
// U+007E), kept as it is: it goes where grades go, into CSV cells, an LTI
// Assignment and Grade Services userId and a OneRoster sourcedId, and each
// of those keeps such an ID byte for byte, where spaces are trimmed, control
// characters break lines and records, and non-ASCII text meets other
// normalizations and encodings. The name passes CleanParticipant and is
// returned in its cleaned form, the form boards show.
func CleanStudent(s Student) (Student, error) { return cleanStudent(s, "") }

// cleanStudent is CleanStudent, its errors naming subject after the
// sentinel's words when it is not "".
func cleanStudent(s Student, subject string) (Student, error) {
	if subject != "" {
		subject += ": "
	}
	if problem := studentIDProblem(s.ID); problem != "" {
		return Student{}, fmt.Errorf("%w: %sID %s %s (%s)", ErrInvalidStudent, subject, quote(s.ID), problem, studentIDRule)
	}
	clean, problem := names.Clean(s.Name)
	if problem != "" {
		return Student{}, fmt.Errorf("%w: %sstudent %s: name %s %s", ErrInvalidStudent, subject, quote(s.ID), quote(s.Name), problem)
	}
	return Student{ID: s.ID, Name: clean}, nil
}

// lookalike is a name's confusable key: two names a class would take for
// one another have the same key.
func lookalike(name string) string { return names.Key(name) }

// EnrollError is Class.Enroll's refusal of one student, with nothing
// written: errors.Is tells ErrNameTaken (the name is Holder's, or Holder's
// name is one a class would confuse with it: Lookalike) from ErrConflict
// (Student's ID is enrolled as Holder, under another name). Holder may be a
// student of the same call, given before Student.
type EnrollError struct {
	Class     string
	Student   Student // the student refused, its name cleaned
	Holder    Student // the enrolled student it collides with
	Lookalike bool    // ErrNameTaken: the names differ, and a class would confuse them
	err       error   // ErrNameTaken or ErrConflict
}

// Error words the refusal, naming both students.
func (e *EnrollError) Error() string {
	class := "class " + quote(e.Class)
	switch {
	case errors.Is(e.err, ErrConflict):
		return fmt.Sprintf("kuis: conflict: %s: student %s is enrolled as %s, not %s; withdraw it to enroll it under another name",
			class, quote(e.Student.ID), quote(e.Holder.Name), quote(e.Student.Name))
	case e.Lookalike:
		return fmt.Sprintf("%v: %s: student %s: name %s looks like %s, the name of student %s",
			ErrNameTaken, class, quote(e.Student.ID), quote(e.Student.Name), quote(e.Holder.Name), quote(e.Holder.ID))
	default:
		return fmt.Sprintf("%v: %s: student %s: name %s is the name of student %s",
			ErrNameTaken, class, quote(e.Student.ID), quote(e.Student.Name), quote(e.Holder.ID))
	}
}

// Unwrap returns ErrNameTaken or ErrConflict.
func (e *EnrollError) Unwrap() error { return e.err }

// fail maps err (from a command on key, about the student of ID id) to the
// library's error about the class: enroll.lua's refusals become an
// *EnrollError.
func (c *Class) fail(err error, id, key string) error {
	var re *rueidis.RedisError
	if errors.As(err, &re) {
		code, rest, _ := strings.Cut(re.Error(), " ")
		f := strings.Split(rest, conflictSeparator)
		switch {
		case code == "KUIS_CONFLICT" && len(f) == 3:
			return &EnrollError{Class: c.keys.classID, Student: Student{f[0], f[2]}, Holder: Student{f[0], f[1]}, err: ErrConflict}
		case code == "KUIS_NAMETAKEN" && len(f) == 5:
			return &EnrollError{Class: c.keys.classID, Student: Student{f[0], f[1]}, Holder: Student{f[2], f[3]},
				Lookalike: f[4] == "lookalike", err: ErrNameTaken}
		}
	}
	return replyError(err, c.about(id), key)
}

// Enroll adds students to the class, all or none, in one atomic step, each
// checked against the roster and the students before it in the call, before
// anything is written: O(M), M the students given, at most 5,000 a call.
// Each student is cleaned as CleanStudent does: the name is stored in
// CleanParticipant's form. A student enrolled already under the same name
// changes nothing, and so does a call of only such students (given twice in
// one call too).
//
// Two names are one in a class when they are equal, or when their
// confusable keys are: the Unicode confusable skeleton (UTS #39), folded
// for case and width, so that Greek "ΤΟΜ", Latin "TOM" and "Tom", Cyrillic
// "Аԁе" and Latin "Ade", fullwidth "ａｄｉ　ｎｕｇｒｏｈｏ" and "Adi Nugroho"
// are one. The skeleton leaves out a letter of the Latin, Greek or Cyrillic
// alphabet mapped to two or more letters of its own script, since both
// spell real names: "Ami" and "Arni" (whose rn UTS #39 takes for m) are
// two.
//
// Refused, with nothing written: ErrInvalidStudent (a student CleanStudent
// refuses, saying which of the call; more than 5,000 students) before any
// I/O; ErrNameTaken (a name that is, or that the class would confuse with,
// the name of another ID, enrolled or given before in the call) and
// ErrConflict (an ID enrolled, or given before in the call, under another
// name: withdraw it first to rename it), both as an *EnrollError naming the
// two students; ErrCorrupt (a key of the wrong type); ErrForbidden. With
// WithReplicas, ErrNotReplicated: the students were enrolled on the primary.
func (c *Class) Enroll(ctx context.Context, students ...Student) error {
	if len(students) > maxRosterCall {
		return fmt.Errorf("%w: %s: %d students in one call (want at most %d)", ErrInvalidStudent, c.about(""), len(students), maxRosterCall)
	}
	if len(students) == 0 {
		return nil
	}
	args := make([]string, 0, 3*len(students))
	for i, st := range students {
		clean, err := cleanStudent(st, fmt.Sprintf("%s, student %d of %d", c.about(""), i+1, len(students)))
		if err != nil {
			return err
		}
		args = append(args, clean.ID, clean.Name, lookalike(clean.Name))
	}
	wrote := func(m rueidis.RedisMessage) bool { n, err := m.AsInt64(); return err == nil && n > 0 }
	res := c.s.runScriptWrote(ctx, script.Enroll, wrote, rueidis.LuaExec{Keys: c.keys.all(), Args: args})[0]
	if _, err := res.AsInt64(); err != nil {
		return c.fail(err, "", c.keys.roster)
	}
	return nil
}

// Withdraw takes students out of the class by ID, their names and
// look-alike keys with them, in one atomic step: O(M), M the IDs given, at
// most 5,000 a call. An ID not enrolled is no error; it changes nothing. It
// reads the students' names first, then withdraws them in one script that
// checks the names are still those read; when a call changed one between
// the two, it reads again, up to three times in all, then returns ErrBusy
// with nothing written. Errors: ErrInvalidStudent (an ID that breaks the ID
// rule; more than 5,000 IDs) before any I/O, ErrBusy, ErrCorrupt (a key of
// the wrong type), ErrForbidden; nothing is written then. With
// WithReplicas, ErrNotReplicated: the students were withdrawn on the
// primary.
func (c *Class) Withdraw(ctx context.Context, studentIDs ...string) error {
	if len(studentIDs) > maxRosterCall {
		return fmt.Errorf("%w: %s: %d students in one call (want at most %d)", ErrInvalidStudent, c.about(""), len(studentIDs), maxRosterCall)
	}
	ids := make([]string, 0, len(studentIDs))
	for _, id := range studentIDs {
		if problem := studentIDProblem(id); problem != "" {
			return fmt.Errorf("%w: %s: ID %s %s (%s)", ErrInvalidStudent, c.about(""), quote(id), problem, studentIDRule)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	wrote := func(m rueidis.RedisMessage) bool { n, err := m.AsInt64(); return err == nil && n > 0 }
	for range readAttempts {
		held, err := c.s.sendOne(ctx, c.s.client, c.s.client.B().Hmget().Key(c.keys.roster).Field(ids...).Build()).ToArray()
		if err != nil {
			return c.fail(err, "", c.keys.roster)
		}
		if len(held) != len(ids) {
			return fmt.Errorf("kuis: %s: HMGET reply of %d elements, want %d", c.about(""), len(held), len(ids))
		}
		args := make([]string, 0, 3*len(ids))
		for i, id := range ids {
			name, err := held[i].ToString()
			switch {
			case rueidis.IsRedisNil(err):
				args = append(args, id, "", "")
			case err != nil:
				return c.fail(err, id, c.keys.roster)
			default:
				args = append(args, id, name, lookalike(name))
			}
		}
		n, err := c.s.runScriptWrote(ctx, script.Withdraw, wrote, rueidis.LuaExec{Keys: c.keys.all(), Args: args})[0].AsInt64()
		if err != nil {
			return c.fail(err, "", c.keys.roster)
		}
		if n >= 0 {
			return nil
		}
	}
	return fmt.Errorf("%w: %s: the roster changed each of the %d times it was read; nothing withdrawn", ErrBusy, c.about(""), readAttempts)
}

// Students reads the roster whole, in HSCAN pages, ordered by ID (byte
// order): O(N), N the students. The pages are read at different moments: a
// student enrolled or withdrawn meanwhile may show or not. A class with
// nobody enrolled is an empty slice. Students come back as stored (Audit
// checks them against the rules). Errors: ErrCorrupt (a roster of the wrong
// type), ErrForbidden.
func (c *Class) Students(ctx context.Context) ([]Student, error) {
	roster, err := c.pager(c.s.client).fields(ctx, c.keys.roster, "*")
	if err != nil {
		return nil, err
	}
	out := make([]Student, 0, len(roster))
	for _, id := range slices.Sorted(maps.Keys(roster)) {
		out = append(out, Student{ID: id, Name: roster[id]})
	}
	return out, nil
}

// Student reads one student by ID: O(1). Errors: ErrInvalidStudent (an ID
// that breaks the ID rule) before any I/O, ErrNotEnrolled, ErrCorrupt,
// ErrForbidden.
func (c *Class) Student(ctx context.Context, id string) (Student, error) {
	if problem := studentIDProblem(id); problem != "" {
		return Student{}, fmt.Errorf("%w: %s: ID %s %s (%s)", ErrInvalidStudent, c.about(""), quote(id), problem, studentIDRule)
	}
	name, err := c.s.sendOne(ctx, c.s.client, c.s.client.B().Hget().Key(c.keys.roster).Field(id).Build()).ToString()
	switch {
	case rueidis.IsRedisNil(err):
		return Student{}, fmt.Errorf("%w: %s", ErrNotEnrolled, c.about(id))
	case err != nil:
		return Student{}, c.fail(err, id, c.keys.roster)
	}
	return Student{ID: id, Name: name}, nil
}

// Lookup finds the student whose name is name, byte for byte, as a board
// stores it: O(1). It reads the names hash only (Audit checks it against
// the roster). A service that wants only enrolled students on a board calls
// it before Board.Join or RecordAnswer, which never read a roster. Errors:
// ErrInvalidParticipant (a name that is not what CleanParticipant returns
// for it) before any I/O, ErrNotEnrolled, ErrCorrupt, ErrForbidden.
func (c *Class) Lookup(ctx context.Context, name string) (Student, error) {
	if err := checkParticipant(name, func(string) string { return c.about("") }); err != nil {
		return Student{}, err
	}
	id, err := c.s.sendOne(ctx, c.s.client, c.s.client.B().Hget().Key(c.keys.names).Field(name).Build()).ToString()
	switch {
	case rueidis.IsRedisNil(err):
		return Student{}, fmt.Errorf("%w: %s: nobody is enrolled as %s", ErrNotEnrolled, c.about(""), quote(name))
	case err != nil:
		return Student{}, c.fail(err, "", c.keys.names)
	}
	return Student{ID: id, Name: name}, nil
}

// pager is a pager of the class's keys on conn.
func (c *Class) pager(conn rueidis.CommandClient) pager {
	return pager{s: &c.s.sender, c: conn, count: c.s.tune.pageSize, subject: c.about("")}
}

// Audit checks the class's keys against the contract and returns one
// Violation per problem, never nil (an empty slice when the roster keeps
// it, or nobody is enrolled), in the order it checks: the type and TTL of
// the roster, the names and the look-alikes ("type", "ttl"); each student
// of the roster: an ID that breaks the ID rule ("student"), a name that is
// not what CleanParticipant returns for it ("name"); the names hash against
// the roster, each student's name naming its ID and each field naming the
// student whose name it is ("names"); and the look-alikes hash against the
// roster, each student's name's confusable key naming its ID, two students
// whose names a class would confuse, and each field the key of the name of
// the student it names ("lookalike"). The three hashes are read in one
// transaction, one moment: O(N), N the students, in one step. It never
// writes. Errors: ErrForbidden.
//
// A look-alike key the library computes differently in a later version
// (a newer Unicode table) shows here as a "lookalike" violation of each
// name it changed: withdraw and enroll those students again.
func (c *Class) Audit(ctx context.Context) ([]Violation, error) {
	snap, err := c.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	found := violations{}
	c.audit(snap, found.add)
	return found, nil
}

// audit adds the violations of a snapshot.
func (c *Class) audit(snap classSnapshot, add complain) {
	k := c.keys
	keys := k.all()
	for i, key := range keys {
		snap.shapes[i].audit(key, "hash", add)
	}
	roster, byName, byKey := snap.hashes[0], snap.hashes[1], snap.hashes[2]
	if roster == nil {
		return // a roster of the wrong type: nothing to check the others against
	}
	ids := slices.Sorted(maps.Keys(roster))
	for _, id := range ids {
		if problem := studentIDProblem(id); problem != "" {
			add(k.roster, "student", "student ID %s %s (%s)", quote(id), problem, studentIDRule)
		}
		if problem := nameProblem(roster[id]); problem != "" {
			add(k.roster, "name", "student %s has name %s, which %s", quote(id), quote(roster[id]), problem)
		}
	}
	if byName != nil {
		for _, id := range ids {
			switch owner, ok := byName[roster[id]]; {
			case !ok:
				add(k.names, "names", "student %s's name %s is missing", quote(id), quote(roster[id]))
			case owner != id:
				add(k.names, "names", "student %s's name %s names student %s", quote(id), quote(roster[id]), quote(owner))
			}
		}
		for _, name := range slices.Sorted(maps.Keys(byName)) {
			owner := byName[name]
			switch held, ok := roster[owner]; {
			case !ok:
				add(k.names, "names", "name %s names student %s, who is not enrolled", quote(name), quote(owner))
			case held != name:
				add(k.names, "names", "name %s names student %s, whose name is %s", quote(name), quote(owner), quote(held))
			}
		}
	}
	if byKey != nil {
		keyOf := make(map[string]string, len(roster)) // student ID -> their name's key
		first := map[string]string{}                  // key -> the first student ID whose name has it
		for _, id := range ids {
			key := lookalike(roster[id])
			keyOf[id] = key
			if other, ok := first[key]; ok {
				add(k.lookalikes, "lookalike", "students %s and %s have names a class would confuse: %s and %s",
					quote(other), quote(id), quote(roster[other]), quote(roster[id]))
				continue
			}
			first[key] = id
			switch owner, ok := byKey[key]; {
			case !ok:
				add(k.lookalikes, "lookalike", "student %s's name %s has no key", quote(id), quote(roster[id]))
			case owner != id:
				add(k.lookalikes, "lookalike", "the key of student %s's name %s names student %s", quote(id), quote(roster[id]), quote(owner))
			}
		}
		for _, key := range slices.Sorted(maps.Keys(byKey)) {
			owner := byKey[key]
			switch held, ok := keyOf[owner]; {
			case !ok:
				add(k.lookalikes, "lookalike", "key %s names student %s, who is not enrolled", quote(key), quote(owner))
			case held != key:
				add(k.lookalikes, "lookalike", "key %s names student %s, whose name %s has another", quote(key), quote(owner), quote(roster[owner]))
			}
		}
	}
}

// classSnapshot is the class's keys read whole at one moment.
type classSnapshot struct {
	shapes []keyShape           // roster, names, look-alikes
	hashes [3]map[string]string // each that is a hash or missing (empty); nil for one of another type
}

// snapshot reads the class's keys whole in one transaction on a dedicated
// connection (MULTI, each key's TYPE, PTTL and HGETALL, EXEC): one moment,
// one round trip, sent again on the node a redirect names (rounds).
func (c *Class) snapshot(ctx context.Context) (classSnapshot, error) {
	r := classRead{c: c, ctx: ctx}
	if err := c.s.rounds(ctx, true, &r); err != nil {
		return classSnapshot{}, c.fail(err, "", c.keys.roster)
	}
	return r.snap, r.err
}

// classRead is one snapshot, as rounds sends it.
type classRead struct {
	c    *Class
	ctx  context.Context
	snap classSnapshot
	err  error
}

func (r *classRead) round(conn rueidis.CommandClient, more bool) round {
	r.snap, r.err = r.c.snapshotOn(r.ctx, conn)
	return again(r.ctx, r.err, more)
}

// snapshotOn is snapshot's transaction on conn.
func (c *Class) snapshotOn(ctx context.Context, conn rueidis.CommandClient) (snap classSnapshot, err error) {
	keys := c.keys.all()
	cmds := append(make([]rueidis.Completed, 0, 3*len(keys)+2), conn.B().Multi().Build())
	for _, key := range keys {
		cmds = append(cmds, conn.B().Type().Key(key).Build(), conn.B().Pttl().Key(key).Build(), conn.B().Hgetall().Key(key).Build())
	}
	res := c.s.send(ctx, conn, append(cmds, conn.B().Exec().Build())...)
	for i, r := range res[:len(res)-1] { // a command refused as it was queued (ACL): EXEC discards them all
		if err := r.Error(); err != nil {
			return snap, c.fail(err, "", keys[max(i-1, 0)/3])
		}
	}
	replies, err := res[len(res)-1].ToArray()
	if err != nil {
		return snap, c.fail(err, "", c.keys.roster)
	}
	if len(replies) != 3*len(keys) {
		return snap, fmt.Errorf("kuis: %s: EXEC reply of %d elements, want %d", c.about(""), len(replies), 3*len(keys))
	}
	snap.shapes = make([]keyShape, len(keys))
	for i, key := range keys {
		typ, ttl, all := replies[3*i], replies[3*i+1], replies[3*i+2]
		if snap.shapes[i].typ, err = typ.ToString(); err != nil {
			return snap, c.fail(err, "", key)
		}
		if snap.shapes[i].ttl, err = ttl.AsInt64(); err != nil {
			return snap, c.fail(err, "", key)
		}
		if snap.shapes[i].fits("hash") {
			if snap.hashes[i], err = all.AsStrMap(); err != nil {
				return snap, c.fail(err, "", key)
			}
		}
	}
	return snap, nil
}

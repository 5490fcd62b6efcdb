package kuis_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kuisboard/kuis"
	"github.com/kuisboard/kuis/internal/redistest"
)

// TestContractTable: the key schema ContractTable gives, in the default
// form and namespaced with hash tags.
func TestContractTable(t *testing.T) {
	t.Parallel()
	table := func(board, meta, answers, log, order, repairBoard, repairOrder, course, index, ledger, roster, names, lookalikes string) string {
		return "| key | type | writer | readers | content | scale | TTL |\n" +
			"|---|---|---|---|---|---|---|\n" +
			"| `" + board + "` | sorted set | quiz application (operator: Repair, Erase) | students and teacher | " +
			"member = participant name, score = cumulative points (10 per correct answer) | " +
			"one key per quiz, one member per participant | none while the quiz runs |\n" +
			"| `" + meta + "` | hash | teacher | teacher and quiz application | " +
			"fields `judul` (title), `jumlah_soal` (question count), `status` (`berjalan` or `selesai`); " +
			"when set, `kursus` (the course it folds into) and `kelas` (the class), written by Create only, " +
			"and `tampilan` (`tampil`, `sembunyi` or `akhir`) | " +
			"one key per quiz, three to six fields | none while the quiz runs |\n" +
			"| `" + answers + "` | set | quiz application (operator: Erase removes) | quiz application, teacher and operator (recap, audit) | " +
			"member = `<question>:<participant>` per counted answer | " +
			"one key per quiz, one member per counted answer | none while the quiz runs |\n" +
			"| `" + log + "` | stream | quiz application (teacher: the start and finish entries; operator: Erase removes) | teacher (recap, audit) and quiz application (the feed) | " +
			"first, the start entry: the single field `status` = `berjalan`, written by Create; then one entry per counted answer, " +
			"in the order counted: fields `peserta`, `soal`, `skor` (score after it), and among them one join entry per participant Join put on the board: " +
			"fields `peserta` and `skor` = `0`; the entry ID is the server's time in ms; " +
			"last, the finish entry: the single field `status` = `selesai`, written with the status change; every reader of answers skips both | " +
			"one key per quiz, one entry per counted answer and per join, plus the start and the finish | none while the quiz runs |\n" +
			"| `" + order + "` | sorted set | quiz application (operator: Repair, Erase) | students and teacher | " +
			"member = participant name, score = answers x 2^42 + (2^42 - 1 - ms of the latest answer, or of the join before any): " +
			"points, then the earlier time | " +
			"one key per quiz, one member per participant | none while the quiz runs |\n" +
			"| `" + repairBoard + "` | sorted set | operator (Repair) | none: Repair renames it to the board | " +
			"a board being rebuilt by Repair, as the board, plus one token member starting with a NUL byte; " +
			"it exists only while Repair rebuilds | " +
			"at most one key per quiz, for the length of a Repair | none while the quiz runs |\n" +
			"| `" + repairOrder + "` | sorted set | operator (Repair) | none: Repair renames it to the order set | " +
			"the order set being rebuilt with the board above, as the order set | " +
			"at most one key per quiz, for the length of a Repair | none while the quiz runs |\n" +
			"| `" + course + "` | sorted set | operator (Fold, Unfold, Repair, Erase) | students, teacher and quiz application | " +
			"member = participant name, score = the points of every quiz instance folded into the course, each (instance, participant) once; " +
			"its members are exactly the participants the ledgers hold, 0-point ones included | " +
			"one key per course, one member per participant | none |\n" +
			"| `" + index + "` | hash | operator (Fold, Unfold, Erase) | teacher, operator and quiz application (quizzes, recap, audit, repair) | " +
			"the quiz index: field `<quiz>@<instance>` (the instance the quiz log's start entry names) = the instance's marker " +
			"`<possible> <participants> <points> <digest> <folded_ms>`: 10 x `jumlah_soal`, the recap's standings and their points, " +
			"the recap's digest, and the server's time in ms when the fold was complete (0 while it is in parts) | " +
			"one key per course, one field per folded quiz instance | none |\n" +
			"| `" + ledger + "` | hash | operator (Fold, Unfold, Erase) | teacher, operator and quiz application (recap, audit, repair) | " +
			"the ledger of one folded quiz instance: participant = the points it gave them (a multiple of 10, 0 included), " +
			"written with the total in one step | one key per folded quiz instance, one field per participant of its recap | none |\n" +
			"| `" + roster + "` | hash | teacher (Enroll, Withdraw; operator: Erase) | every role (students, lookup, audit, grades) | " +
			"the roster: student ID (1 to 64 bytes of printable ASCII without spaces) = the student's name on boards, " +
			"in `CleanParticipant`'s form, no two names of a class alike | one key per class, one field per enrolled student | none |\n" +
			"| `" + names + "` | hash | teacher (Enroll, Withdraw; operator: Erase) | every role (lookup, audit) | " +
			"the roster turned around: name = student ID, written with the roster in one step | " +
			"one key per class, one field per enrolled student | none |\n" +
			"| `" + lookalikes + "` | hash | teacher (Enroll, Withdraw; operator: Erase) | every role (audit) | " +
			"a name's confusable key (its UTS #39 skeleton, case and width folded) = student ID, written with the roster in one step, " +
			"so that no name a class would confuse with an enrolled one is enrolled | " +
			"one key per class, one field per enrolled student | none |\n"
	}
	tests := []struct {
		name string
		opts []kuis.Option
		want string
	}{
		{"default", nil, table("kuis:papan:<quiz>", "kuis:meta:<quiz>", "kuis:jawaban:<quiz>", "kuis:catatan:<quiz>", "kuis:urutan:<quiz>",
			"kuis:papan-baru:<quiz>", "kuis:urutan-baru:<quiz>", "kuis:kursus:<course>", "kuis:kursus-kuis:<course>",
			"kuis:kursus-rincian:<course>:<quiz>@<instance>", "kuis:kelas:<class>", "kuis:kelas-nama:<class>", "kuis:kelas-mirip:<class>")},
		{"namespaced and hash-tagged", []kuis.Option{kuis.WithNamespace("sekolah"), kuis.WithHashTag()},
			table("sekolah:papan:{<quiz>}", "sekolah:meta:{<quiz>}", "sekolah:jawaban:{<quiz>}",
				"sekolah:catatan:{<quiz>}", "sekolah:urutan:{<quiz>}",
				"sekolah:papan-baru:{<quiz>}", "sekolah:urutan-baru:{<quiz>}",
				"sekolah:kursus:{<course>}", "sekolah:kursus-kuis:{<course>}", "sekolah:kursus-rincian:{<course>}:<quiz>@<instance>",
				"sekolah:kelas:{<class>}", "sekolah:kelas-nama:{<class>}", "sekolah:kelas-mirip:{<class>}")},
	}
	for _, tt := range tests {
		got, err := kuis.ContractTable(tt.opts...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: ContractTable (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestOperationsTableIsThePackageDoc: doc.go shows the operations table the
// library's ACLRules are made from, line for line.
func TestOperationsTableIsThePackageDoc(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(kuis.OperationsTable()), "\n") {
		want.WriteString("//\t" + line + "\n")
	}
	if !strings.Contains(string(src), want.String()) {
		t.Errorf("doc.go does not hold the operations table; it should hold:\n%s", want.String())
	}
}

// TestScriptCommandsAreWhatTheScriptsCall: the commands the table lists for
// each script are exactly those its source calls, with the prelude's helpers
// it uses, so that ACLRules grants what the scripts need and no more.
func TestScriptCommandsAreWhatTheScriptsCall(t *testing.T) {
	t.Parallel()
	table := kuis.ScriptCommands()
	prelude, err := os.ReadFile("internal/script/prelude.lua")
	if err != nil {
		t.Fatal(err)
	}
	helpers := luaFunctions(string(prelude))
	if len(helpers) < 5 {
		t.Fatalf("found only %d functions in prelude.lua", len(helpers))
	}
	files, err := os.ReadDir("internal/script")
	if err != nil {
		t.Fatal(err)
	}
	var scripts []string
	for _, f := range files {
		if name := f.Name(); strings.HasSuffix(name, ".lua") && name != "prelude.lua" {
			scripts = append(scripts, name)
		}
	}
	for _, name := range scripts {
		body, err := os.ReadFile("internal/script/" + name)
		if err != nil {
			t.Fatal(err)
		}
		got := luaCommands(string(body), helpers)
		want := slices.Clone(table[name])
		slices.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s calls (-table +source):\n%s", name, diff)
		}
	}
	if len(table) != len(scripts) {
		t.Errorf("the table lists %d scripts, internal/script holds %d", len(table), len(scripts))
	}
}

var (
	luaFunc    = regexp.MustCompile(`(?m)^( *)(?:local )?function (?:g\.)?(\w+)\(`)
	luaCall    = regexp.MustCompile(`\b(\w+)\(`)
	luaCommand = regexp.MustCompile(`'([A-Z]+)'`)
	// permittedCall is a g.permitted(...) or g.deletable(...) call: the
	// commands it names are ACL checks made before writing, not calls. Its
	// arguments are tables of one line each, so it ends at the first ")"
	// that ends a line.
	permittedCall = regexp.MustCompile(`(?s)g\.(permitted|deletable)\(.*?\)\s*\n`)
)

// luaFunctions maps each function the prelude defines (g.x as x) to its
// source, the lines up to its own end.
func luaFunctions(src string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(src, "\n")
	for i, line := range lines {
		m := luaFunc.FindStringSubmatch(line)
		// gate only builds the g.* helpers; permitted and deletable check the ACL.
		if len(m) < 3 || m[2] == "gate" || m[2] == "permitted" || m[2] == "deletable" {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j] != m[1]+"end" {
			j++
		}
		out[m[2]] = strings.Join(lines[i:j], "\n")
	}
	return out
}

// luaCommands lists, sorted, the Redis commands named in src and in the
// helpers it calls, transitively.
func luaCommands(src string, helpers map[string]string) []string {
	notCommands := map[string]bool{"COUNT": true, "REV": true, "WITHSCORES": true, "WRONGTYPE": true, "STREAM": true}
	seen, cmds := map[string]bool{}, map[string]bool{}
	var walk func(string)
	walk = func(text string) {
		for _, m := range luaCommand.FindAllStringSubmatch(permittedCall.ReplaceAllString(text, ""), -1) {
			if !notCommands[m[1]] {
				cmds[m[1]] = true
			}
		}
		for _, m := range luaCall.FindAllStringSubmatch(text, -1) {
			if h, ok := helpers[m[1]]; ok && !seen[m[1]] {
				seen[m[1]] = true
				walk(h)
			}
		}
	}
	walk(permittedCall.ReplaceAllString(src, ""))
	out := make([]string, 0, len(cmds))
	for c := range cmds {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// TestOperationsSendWhatTheTableSays runs every method of the operations
// table, through each of its paths, on a client that records the commands
// sent: a method sends no command its row leaves out (ACLRules would not
// grant it), and every plain command a row lists is sent by some path.
func TestOperationsSendWhatTheTableSays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rec := newRecorder(e.client)
	sends, listed := kuis.OperationSends(), kuis.OperationCommands()
	stores := map[string]*kuis.Store{
		"plain":          e.storeOn(rec),
		"cached":         e.storeOn(rec, cacheMinute),
		"by time":        e.storeOn(rec, kuis.WithTies(kuis.TiesByTime)),
		"cached by time": e.storeOn(rec, kuis.WithTies(kuis.TiesByTime), cacheMinute),
		"in parts":       e.tunedOn(rec, kuis.Tuning{RecapInParts: true, RepairStep: 1}),
	}
	sent := map[string]map[string]bool{}
	run := func(method string, wantErr bool, call func(s *kuis.Store) error) {
		t.Helper()
		if _, ok := sends[method]; !ok {
			t.Fatalf("%s is not in the operations table", method)
		}
		for name, s := range stores {
			rec.start()
			err := call(s)
			got := rec.stop()
			if (err != nil) != wantErr {
				t.Errorf("%s (%s): %v; want an error: %v", method, name, err, wantErr)
			}
			if sent[method] == nil {
				sent[method] = map[string]bool{}
			}
			for _, c := range got {
				sent[method][c] = true
				if !slices.Contains(sends[method], c) {
					t.Errorf("%s (%s) sent %s, which its row of the operations table leaves out", method, name, c)
				}
			}
		}
	}
	do := func(method string, call func(s *kuis.Store) error) { t.Helper(); run(method, false, call) }
	id, _, _ := e.reference()
	for q := 1; q <= 2; q++ { // Eka ties with Budi: a group across a page's start
		if _, err := e.board(id).RecordAnswer(e.ctx, "Eka", q); err != nil {
			t.Fatal(err)
		}
	}
	quiz := func(s *kuis.Store, id string) (*kuis.Board, *kuis.Meta) { return handles(t, s, id) }
	do("Meta.Create", func(s *kuis.Store) error { _, m := quiz(s, quizID()); return m.Create(e.ctx, "Kuis", 3) })
	do("Meta.Get", func(s *kuis.Store) error { _, m := quiz(s, id); _, err := m.Get(e.ctx); return err })
	do("Meta.Status", func(s *kuis.Store) error { _, m := quiz(s, id); _, err := m.Status(e.ctx); return err })
	do("Meta.SetVisibility", func(s *kuis.Store) error { _, m := quiz(s, id); return m.SetVisibility(e.ctx, kuis.VisibilityShown) })
	do("Board.RecordAnswer", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.RecordAnswer(e.ctx, "Ali", 1); return err })
	do("Board.RecordAnswers", func(s *kuis.Store) error {
		b, _ := quiz(s, id)
		_, err := b.RecordAnswers(e.ctx, []kuis.AnswerInput{{"Fajar", 1}, {"Fajar", 2}})
		return err
	})
	do("Board.Join", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.Join(e.ctx, "Gita"); return err })
	do("Board.Standings", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.Standings(e.ctx); return err })
	do("Board.Page", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.Page(e.ctx, 3, 2); return err })
	do("Board.Around", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.Around(e.ctx, "Dewi", 1); return err })
	do("Board.Standing", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.Standing(e.ctx, "Budi"); return err })
	do("Board.Len", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.Len(e.ctx); return err })
	do("Board.Summary", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.Summary(e.ctx); return err })
	do("Board.Answered", func(s *kuis.Store) error { b, _ := quiz(s, id); _, err := b.Answered(e.ctx, "Budi"); return err })
	do("Store.Audit", func(s *kuis.Store) error { _, err := s.Audit(e.ctx, id); return err })
	do("Store.Repair", func(s *kuis.Store) error {
		e.mustRaw("ZADD", e.keys(id).Board(), "70", "Dewi")
		_, err := s.Repair(e.ctx, id)
		return err
	})
	do("Store.Quizzes", func(s *kuis.Store) error { _, err := s.Quizzes(e.ctx); return err })
	do("Store.Courses", func(s *kuis.Store) error { _, err := s.Courses(e.ctx); return err })
	do("Board.Live", func(s *kuis.Store) error {
		b, _ := quiz(s, id)
		for _, err := range b.Live(e.ctx, 3, time.Minute) {
			return err
		}
		return nil
	})
	do("Meta.Finish", func(s *kuis.Store) error { _, m := quiz(s, id); return m.Finish(e.ctx) })
	do("Board.Events", func(s *kuis.Store) error { // a finished quiz's feed, to its end: no reader outlives it
		b, _ := quiz(s, id)
		for _, err := range b.Events(e.ctx, "") {
			if err != nil {
				return err
			}
		}
		return nil
	})
	do("Store.Recap", func(s *kuis.Store) error { _, err := s.Recap(e.ctx, id); return err })
	do("Store.PurgeQuiz", func(s *kuis.Store) error {
		done, _, _ := e.reference()
		e.finish(done)
		_, err := s.PurgeQuiz(e.ctx, done, func(context.Context, kuis.Recap) error { return nil })
		return err
	})
	// Courses: the quiz folded, by each store (the first folds, the others
	// find it folded), then every read, team boards, and the operator's writes.
	recap, err := e.store.Recap(e.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	course := func(s *kuis.Store) *kuis.Course {
		c, err := s.Course("ipa-8a")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ck := course(e.store).Keys()
	teams := []kuis.Team{{Name: "Merah", Members: []string{"Ali", "Budi"}}, {Name: "Biru", Members: []string{"Citra", "Dewi", "Zahra"}}}
	do("Course.Fold", func(s *kuis.Store) error { _, err := course(s).Fold(e.ctx, recap); return err })
	// A recap lacking a participant the course holds: the conflict names them.
	fewer := recap
	fewer.Standings = recap.Standings[1:]
	run("Course.Fold", true, func(s *kuis.Store) error { _, err := course(s).Fold(e.ctx, fewer); return err })
	do("Course.Unfold", func(s *kuis.Store) error { _, err := course(s).Unfold(e.ctx, id); return err })
	do("Course.Fold", func(s *kuis.Store) error { _, err := course(s).Fold(e.ctx, recap); return err })
	do("Course.UnfoldInstance", func(s *kuis.Store) error { _, err := course(s).UnfoldInstance(e.ctx, id, recap.Instance); return err })
	if _, err := course(e.store).Fold(e.ctx, recap); err != nil {
		t.Fatal(err)
	}
	do("Course.Standings", func(s *kuis.Store) error { _, err := course(s).Standings(e.ctx); return err })
	do("Course.Page", func(s *kuis.Store) error { _, err := course(s).Page(e.ctx, 3, 2); return err })
	do("Course.Around", func(s *kuis.Store) error { _, err := course(s).Around(e.ctx, "Dewi", 1); return err })
	do("Course.Standing", func(s *kuis.Store) error { _, err := course(s).Standing(e.ctx, "Budi"); return err })
	do("Course.Len", func(s *kuis.Store) error { _, err := course(s).Len(e.ctx); return err })
	do("Course.Quizzes", func(s *kuis.Store) error { _, err := course(s).Quizzes(e.ctx); return err })
	do("Course.Teams", func(s *kuis.Store) error { _, err := course(s).Teams(e.ctx, teams, kuis.TeamMean); return err })
	do("Board.Teams", func(s *kuis.Store) error {
		b, _ := quiz(s, id)
		_, err := b.Teams(e.ctx, teams, kuis.TeamSum)
		return err
	})
	do("Course.Recap", func(s *kuis.Store) error { _, err := course(s).Recap(e.ctx); return err })
	do("Course.Audit", func(s *kuis.Store) error { _, err := course(s).Audit(e.ctx); return err })
	do("Course.Repair", func(s *kuis.Store) error {
		e.mustRaw("ZADD", ck.Board(), "70", "Dewi", "10", "Zahra")
		_, err := course(s).Repair(e.ctx)
		return err
	})
	// What fails after reading leaves its connection as it found it.
	e.mustRaw("HSET", ck.Ledger(id, recap.Instance), "Bukan", "15")
	run("Course.Recap", true, func(s *kuis.Store) error { _, err := course(s).Recap(e.ctx); return err })
	run("Course.Repair", true, func(s *kuis.Store) error { _, err := course(s).Repair(e.ctx); return err })
	e.mustRaw("HDEL", ck.Ledger(id, recap.Instance), "Bukan")
	run("Course.Purge", true, func(s *kuis.Store) error {
		_, err := course(s).Purge(e.ctx, func(context.Context, kuis.CourseRecap) error { return errors.New("disk full") })
		return err
	})
	do("Course.Purge", func(s *kuis.Store) error {
		_, err := course(s).Purge(e.ctx, func(context.Context, kuis.CourseRecap) error { return nil })
		return err
	})
	// Classes: enroll (new students, then the same again, then a refusal),
	// every read, the audit (clean, and of a tampered roster), withdraw (the
	// students, then nobody enrolled).
	class := func(s *kuis.Store) *kuis.Class {
		c, err := s.Class("8a")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	roster := []kuis.Student{{ID: "S1", Name: "Ali"}, {ID: "S2", Name: "Budi"}}
	do("Class.Enroll", func(s *kuis.Store) error { return class(s).Enroll(e.ctx, roster...) })
	run("Class.Enroll", true, func(s *kuis.Store) error { return class(s).Enroll(e.ctx, kuis.Student{ID: "S3", Name: "Ali"}) })
	do("Class.Students", func(s *kuis.Store) error { _, err := class(s).Students(e.ctx); return err })
	do("Class.Student", func(s *kuis.Store) error { _, err := class(s).Student(e.ctx, "S2"); return err })
	do("Class.Lookup", func(s *kuis.Store) error { _, err := class(s).Lookup(e.ctx, "Budi"); return err })
	do("Class.Audit", func(s *kuis.Store) error { _, err := class(s).Audit(e.ctx); return err })
	kk := class(e.store).Keys()
	e.mustRaw("HSET", kk.Names(), "Zahra", "S9")
	do("Class.Audit", func(s *kuis.Store) error { _, err := class(s).Audit(e.ctx); return err })
	e.mustRaw("HDEL", kk.Names(), "Zahra")
	do("Class.Withdraw", func(s *kuis.Store) error { return class(s).Withdraw(e.ctx, "S1", "S9") })
	// A read in parts that fails leaves its connection as it found it.
	broken, _, _ := e.reference()
	e.mustRaw("XADD", e.keys(broken).Log(), "*", "peserta", "Ali", "soal", "nol", "skor", "10")
	run("Store.Recap", true, func(s *kuis.Store) error { _, err := s.Recap(e.ctx, broken); return err })
	e.finish(broken)
	run("Store.PurgeQuiz", true, func(s *kuis.Store) error {
		_, err := s.PurgeQuiz(e.ctx, broken, func(context.Context, kuis.Recap) error { return nil })
		return err
	})
	// Erasures: Budi of class 8a, on a finished quiz of the class folded
	// into the course, by Class.Erase; then Citra, on quizzes, the course
	// and the roster, by Store.Erase.
	classQuiz := quizID()
	cb, cm := quiz(e.store, classQuiz)
	if err := cm.Create(e.ctx, "Kuis kelas", 3, kuis.ForClass("8a")); err != nil {
		t.Fatal(err)
	}
	if _, err := cb.RecordAnswer(e.ctx, "Budi", 1); err != nil {
		t.Fatal(err)
	}
	e.finish(classQuiz)
	classRecap, err := e.store.Recap(e.ctx, classQuiz)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []kuis.Recap{recap, classRecap} {
		if _, err := course(e.store).Fold(e.ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := class(e.store).Enroll(e.ctx, kuis.Student{ID: "S3", Name: "Citra"}); err != nil {
		t.Fatal(err)
	}
	do("Class.Erase", func(s *kuis.Store) error { _, err := class(s).Erase(e.ctx, "S2"); return err })
	do("Store.Erase", func(s *kuis.Store) error { _, err := s.Erase(e.ctx, "Citra"); return err })
	do("Store.Purge", func(s *kuis.Store) error { _, err := s.Purge(e.ctx); return err })
	for method, cmds := range listed {
		for _, c := range cmds {
			// WAIT needs replicas: TestReplicasEveryWriteWaits sees each write send it.
			if !sent[method][c] && c != "WAIT" && (!strings.HasPrefix(c, "CLUSTER|") || redistest.Cluster()) {
				t.Errorf("%s never sent %s, which its row of the operations table lists", method, c)
			}
		}
	}
	if len(sent) != len(sends) {
		t.Errorf("ran %d methods of the %d in the operations table", len(sent), len(sends))
	}
}

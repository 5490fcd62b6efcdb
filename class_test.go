package kuis_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kuisboard/kuis"
)

// class returns the handle on class id.
func (e *env) class(id string) *kuis.Class {
	e.t.Helper()
	c, err := e.store.Class(id)
	if err != nil {
		e.t.Fatalf("Class(%q): %v", id, err)
	}
	return c
}

var classSeq atomic.Int64

// classID returns a class ID unused in this process.
func classID() string { return fmt.Sprintf("8a-%02d", classSeq.Add(1)) }

// rosterKeys lists the class's keys.
func rosterKeys(c *kuis.Class) []string {
	k := c.Keys()
	return []string{k.Roster(), k.Names(), k.Lookalikes()}
}

// enrolled enrolls students in a new class and returns it.
func (e *env) enrolled(students ...kuis.Student) *kuis.Class {
	e.t.Helper()
	c := e.class(classID())
	if err := c.Enroll(e.ctx, students...); err != nil {
		e.t.Fatalf("Enroll(%v): %v", students, err)
	}
	return c
}

// wantStudents checks the class's roster against want, and that Audit
// finds it clean.
func wantStudents(t *testing.T, e *env, c *kuis.Class, want []kuis.Student) {
	t.Helper()
	got, err := c.Students(e.ctx)
	if err != nil {
		t.Fatalf("Students: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Students (-want +got):\n%s", diff)
	}
	if v, err := c.Audit(e.ctx); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
}

// TestStoreClass: a class ID follows the quiz ID rule, checked before any
// I/O, and names the three keys of the roster in the Store's namespace,
// hash-tagged with WithHashTag.
func TestStoreClass(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, id := range []string{"", "8 a", "8:a", "8{a}", "8*", strings.Repeat("a", 65), "kelas\u00e9"} {
		if c, err := e.store.Class(id); !errors.Is(err, kuis.ErrInvalidClassID) || c != nil {
			t.Errorf("Class(%q) = %v, %v; want ErrInvalidClassID", id, c, err)
		}
	}
	for _, tc := range []struct {
		opts []kuis.Option
		want [3]string
	}{
		{nil, [3]string{"kuis:kelas:8a", "kuis:kelas-nama:8a", "kuis:kelas-mirip:8a"}},
		{[]kuis.Option{kuis.WithNamespace("sekolah"), kuis.WithHashTag()},
			[3]string{"sekolah:kelas:{8a}", "sekolah:kelas-nama:{8a}", "sekolah:kelas-mirip:{8a}"}},
	} {
		s, err := kuis.New(e.client, tc.opts...)
		if err != nil {
			if errors.Is(err, kuis.ErrNeedsHashTag) {
				continue // a cluster client takes only the hash-tagged form
			}
			t.Fatal(err)
		}
		c, err := s.Class("8a")
		if err != nil {
			t.Fatal(err)
		}
		k := c.Keys()
		if got := [3]string{k.Roster(), k.Names(), k.Lookalikes()}; got != tc.want || k.ClassID() != "8a" {
			t.Errorf("Keys = %q (class %q), want %q", got, k.ClassID(), tc.want)
		}
	}
}

// TestCleanStudent: the ID rule (1 to 64 bytes of printable ASCII without
// spaces, kept as it is) and the name rule (CleanParticipant's, the name
// returned cleaned), each refusal naming the field and the character.
func TestCleanStudent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      kuis.Student
		want    kuis.Student
		problem string // part of the refusal's message; "" for none
	}{
		{kuis.Student{ID: "S1", Name: "Ali"}, kuis.Student{ID: "S1", Name: "Ali"}, ""},
		{kuis.Student{ID: "0012345678", Name: "  Siti\u00a0Aminah "}, kuis.Student{ID: "0012345678", Name: "Siti Aminah"}, ""},
		{kuis.Student{ID: "user@school.id", Name: "\uff21\uff4c\uff49"}, kuis.Student{ID: "user@school.id", Name: "Ali"}, ""},
		{kuis.Student{ID: `a!"#$%&'()*+,-./:;<=>?@[\]^_{|}~z`, Name: "Ali"}, kuis.Student{ID: `a!"#$%&'()*+,-./:;<=>?@[\]^_{|}~z`, Name: "Ali"}, ""},
		{kuis.Student{ID: strings.Repeat("7", 64), Name: "Ali"}, kuis.Student{ID: strings.Repeat("7", 64), Name: "Ali"}, ""},
		{kuis.Student{ID: "", Name: "Ali"}, kuis.Student{}, `ID "" is 0 bytes long`},
		{kuis.Student{ID: strings.Repeat("7", 65), Name: "Ali"}, kuis.Student{}, "is 65 bytes long"},
		{kuis.Student{ID: "S 1", Name: "Ali"}, kuis.Student{}, `ID "S 1" holds a space at byte 2`},
		{kuis.Student{ID: "S1\n", Name: "Ali"}, kuis.Student{}, "holds the control byte 0x0a at byte 3"},
		{kuis.Student{ID: "S\x7f", Name: "Ali"}, kuis.Student{}, "holds the control byte 0x7f at byte 2"},
		{kuis.Student{ID: "Sé", Name: "Ali"}, kuis.Student{}, "holds the byte 0xc3, which is not ASCII, at byte 2"},
		{kuis.Student{ID: "S1", Name: ""}, kuis.Student{}, `student "S1": name ""`},
		{kuis.Student{ID: "S1", Name: "Ali\u200bBaba"}, kuis.Student{}, "U+200B at character 4"},
		{kuis.Student{ID: "S1", Name: "\u0410li"}, kuis.Student{}, "student \"S1\": name \"\u0410li\""},
	}
	for _, tc := range tests {
		got, err := kuis.CleanStudent(tc.in)
		switch {
		case tc.problem == "" && (err != nil || got != tc.want):
			t.Errorf("CleanStudent(%+q) = %+q, %v; want %+q", tc.in, got, err, tc.want)
		case tc.problem != "" && (!errors.Is(err, kuis.ErrInvalidStudent) || !strings.Contains(err.Error(), tc.problem) || got != kuis.Student{}):
			t.Errorf("CleanStudent(%+q) = %+q, %v; want ErrInvalidStudent saying %q", tc.in, got, err, tc.problem)
		}
	}
}

// TestEnroll: students enrolled are read back by ID, by name and whole, in
// their names' cleaned form; enrolling the same students again, in any
// order, with their names as typed or given twice in one call, changes
// nothing; a class with nobody enrolled reads as empty.
func TestEnroll(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.class(classID())
	if got, err := c.Students(e.ctx); err != nil || !cmp.Equal(got, []kuis.Student{}) {
		t.Errorf("Students of an empty class = %#v, %v; want an empty slice", got, err)
	}
	if err := c.Enroll(e.ctx); err != nil {
		t.Errorf("Enroll of nobody: %v", err)
	}
	if diff := cmp.Diff(gone(rosterKeys(c)...), e.dump(rosterKeys(c)...)); diff != "" {
		t.Errorf("Enroll of nobody wrote (-want +got):\n%s", diff)
	}
	typed := []kuis.Student{{"S2", "  Budi "}, {"S10", "Citra"}, {"S1", "\uff21\uff4c\uff49"}, {"S3", "列夫"}}
	want := []kuis.Student{{"S1", "Ali"}, {"S10", "Citra"}, {"S2", "Budi"}, {"S3", "列夫"}} // by ID, byte order
	if err := c.Enroll(e.ctx, typed...); err != nil {
		t.Fatalf("Enroll: %v", err)
	}
	wantStudents(t, e, c, want)
	before := e.dump(rosterKeys(c)...)
	for _, again := range [][]kuis.Student{typed, want, {want[2], want[2]}, {{"S1", "Ali"}, {"S1", " Ali"}}} {
		if err := c.Enroll(e.ctx, again...); err != nil {
			t.Errorf("Enroll(%q) again: %v", again, err)
		}
	}
	if diff := cmp.Diff(before, e.dump(rosterKeys(c)...)); diff != "" {
		t.Errorf("enrolling the same students again changed keys (-before +after):\n%s", diff)
	}
	for _, s := range want {
		if got, err := c.Student(e.ctx, s.ID); err != nil || got != s {
			t.Errorf("Student(%q) = %+v, %v; want %+v", s.ID, got, err, s)
		}
		if got, err := c.Lookup(e.ctx, s.Name); err != nil || got != s {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", s.Name, got, err, s)
		}
	}
	// A later call adds to the roster.
	if err := c.Enroll(e.ctx, kuis.Student{ID: "S4", Name: "Dewi"}); err != nil {
		t.Fatal(err)
	}
	wantStudents(t, e, c, append(want, kuis.Student{ID: "S4", Name: "Dewi"}))
}

// TestClassReadsRefuse: Student and Lookup answer ErrNotEnrolled for whom
// the class lacks, and refuse an ID or a name out of its rule before any
// I/O (a name is looked up as a board stores it, never cleaned).
func TestClassReadsRefuse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.enrolled(kuis.Student{ID: "S1", Name: "Ali"})
	other := e.class(classID())
	checks := []struct {
		name string
		err  error
		want error
	}{
		{"Student of an ID not enrolled", errOf(c.Student(e.ctx, "S2")), kuis.ErrNotEnrolled},
		{"Student of an empty class", errOf(other.Student(e.ctx, "S1")), kuis.ErrNotEnrolled},
		{"Lookup of a name not enrolled", errOf(c.Lookup(e.ctx, "Budi")), kuis.ErrNotEnrolled},
		{"Lookup of another case", errOf(c.Lookup(e.ctx, "ali")), kuis.ErrNotEnrolled},
		{"Student of an invalid ID", errOf(c.Student(e.ctx, "S 1")), kuis.ErrInvalidStudent},
		{"Lookup of a name not clean", errOf(c.Lookup(e.ctx, " Ali")), kuis.ErrInvalidParticipant},
		{"Lookup of an empty name", errOf(c.Lookup(e.ctx, "")), kuis.ErrInvalidParticipant},
	}
	for _, ck := range checks {
		if !errors.Is(ck.err, ck.want) {
			t.Errorf("%s: %v; want %v", ck.name, ck.err, ck.want)
		}
	}
	if err := errOf(c.Student(e.ctx, "S2")); err == nil || !strings.Contains(err.Error(), `class "`+c.Keys().ClassID()+`", student "S2"`) {
		t.Errorf("Student(S2): %v; want the class and the student named", err)
	}
}

// refusedEnroll is an Enroll that must be refused with nothing written.
type refusedEnroll struct {
	name     string
	enrolled []kuis.Student // the class before the call
	call     []kuis.Student
	want     error
	holder   *kuis.EnrollError // for ErrNameTaken and ErrConflict: the error's fields, Class aside
	message  string            // a part of the message
}

// TestEnrollRefusals: each rule of Enroll refuses the whole call, with
// nothing written, and says which student and why; the refusals of a name
// or an ID an enrolled student holds are *EnrollErrors naming both.
func TestEnrollRefusals(t *testing.T) {
	t.Parallel()
	ali, budi := kuis.Student{ID: "S1", Name: "Ali"}, kuis.Student{ID: "S2", Name: "Budi"}
	tests := []refusedEnroll{
		{name: "an ID with a space, third of the call", enrolled: []kuis.Student{ali},
			call: []kuis.Student{budi, {"S3", "Citra"}, {"S 4", "Dewi"}}, want: kuis.ErrInvalidStudent,
			message: `student 3 of 3: ID "S 4" holds a space at byte 2`},
		{name: "a name of two scripts", call: []kuis.Student{budi, {"S3", "\u0410li"}}, want: kuis.ErrInvalidStudent,
			message: "student 2 of 2: student \"S3\": name \"\u0410li\""},
		{name: "too many", call: make([]kuis.Student, 5001), want: kuis.ErrInvalidStudent, message: "5001 students in one call"},
		{name: "a name another ID holds", enrolled: []kuis.Student{ali, budi}, call: []kuis.Student{{"S3", "Citra"}, {"S4", "Budi"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S4", Name: "Budi"}, Holder: budi},
			message: `student "S4": name "Budi" is the name of student "S2"`},
		{name: "a name as typed that cleans to another ID's", enrolled: []kuis.Student{ali}, call: []kuis.Student{{"S3", "\uff21\uff4c\uff49"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S3", Name: "Ali"}, Holder: ali}},
		{name: "a name twice in one call", call: []kuis.Student{ali, budi, {"S3", "Ali"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S3", Name: "Ali"}, Holder: ali}},
		{name: "an ID enrolled under another name", enrolled: []kuis.Student{ali}, call: []kuis.Student{budi, {"S1", "Ali Baba"}},
			want: kuis.ErrConflict, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S1", Name: "Ali Baba"}, Holder: ali},
			message: `student "S1" is enrolled as "Ali", not "Ali Baba"`},
		{name: "an ID twice in one call with two names", call: []kuis.Student{ali, budi, {"S1", "Alia"}},
			want: kuis.ErrConflict, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S1", Name: "Alia"}, Holder: ali}},
		{name: "Greek ΤΟΜ beside Latin TOM", enrolled: []kuis.Student{{"S1", "TOM"}}, call: []kuis.Student{{"S2", "\u03a4\u039f\u039c"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S2", Name: "\u03a4\u039f\u039c"},
				Holder: kuis.Student{ID: "S1", Name: "TOM"}, Lookalike: true},
			message: "name \"\u03a4\u039f\u039c\" looks like \"TOM\", the name of student \"S1\""},
		{name: "Cyrillic Аԁе beside Latin Ade", enrolled: []kuis.Student{{"S1", "Ade"}}, call: []kuis.Student{{"S2", "\u0410\u0501\u0435"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S2", Name: "\u0410\u0501\u0435"},
				Holder: kuis.Student{ID: "S1", Name: "Ade"}, Lookalike: true}},
		{name: "Latin Ade beside Cyrillic Аԁе", enrolled: []kuis.Student{{"S1", "\u0410\u0501\u0435"}}, call: []kuis.Student{{"S2", "Ade"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S2", Name: "Ade"},
				Holder: kuis.Student{ID: "S1", Name: "\u0410\u0501\u0435"}, Lookalike: true}},
		{name: "fullwidth adi nugroho beside Adi Nugroho", enrolled: []kuis.Student{{"S1", "Adi Nugroho"}},
			call: []kuis.Student{{"S2", "\uff41\uff44\uff49\u3000\uff4e\uff55\uff47\uff52\uff4f\uff48\uff4f"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S2", Name: "adi nugroho"},
				Holder: kuis.Student{ID: "S1", Name: "Adi Nugroho"}, Lookalike: true}},
		{name: "look-alikes in one call", call: []kuis.Student{{"S1", "TOM"}, {"S2", "\u03a4\u039f\u039c"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S2", Name: "\u03a4\u039f\u039c"},
				Holder: kuis.Student{ID: "S1", Name: "TOM"}, Lookalike: true}},
		{name: "a name of another case", enrolled: []kuis.Student{ali}, call: []kuis.Student{{"S2", "ALI"}},
			want: kuis.ErrNameTaken, holder: &kuis.EnrollError{Student: kuis.Student{ID: "S2", Name: "ALI"}, Holder: ali, Lookalike: true}},
	}
	for i := range tests[2].call {
		tests[2].call[i] = kuis.Student{ID: fmt.Sprintf("S%d", i), Name: fmt.Sprintf("Murid %d", i)}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			c := e.enrolled(tc.enrolled...)
			before := e.dump(rosterKeys(c)...)
			err := c.Enroll(e.ctx, tc.call...)
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.message) {
				t.Errorf("Enroll: %v; want %v saying %q", err, tc.want, tc.message)
			}
			var ee *kuis.EnrollError
			switch {
			case tc.holder == nil && errors.As(err, &ee):
				t.Errorf("Enroll: %#v; want no *EnrollError", ee)
			case tc.holder != nil && !errors.As(err, &ee):
				t.Errorf("Enroll: %v; want an *EnrollError", err)
			case tc.holder != nil:
				want := *tc.holder
				want.Class = c.Keys().ClassID()
				if diff := cmp.Diff(want, *ee, cmpopts.IgnoreUnexported(kuis.EnrollError{})); !errors.Is(ee, tc.want) || diff != "" {
					t.Errorf("Enroll: *EnrollError (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(before, e.dump(rosterKeys(c)...)); diff != "" {
				t.Errorf("a refused Enroll changed keys (-before +after):\n%s", diff)
			}
		})
	}
}

// TestEnrollRealLookalikes: names of one script that look alike but are
// different names, as classes hold them, enroll side by side.
func TestEnrollRealLookalikes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pairs := [][2]string{{"Ami", "Arni"}, {"Rina", "Rima"}, {"Clara", "Dara"}, {"Ira", "Ina"}, {"Ali", "Alif"},
		{"Putri", "Putra"}, {"Dwi", "Dewi"}, {"Lina", "Linda"}, {"Ilham", "Ilhan"}}
	for _, p := range pairs {
		c := e.class(classID())
		students := []kuis.Student{{"S1", p[0]}, {"S2", p[1]}}
		if err := c.Enroll(e.ctx, students...); err != nil {
			t.Errorf("Enroll of %q and %q: %v; want both enrolled", p[0], p[1], err)
			continue
		}
		wantStudents(t, e, c, students)
	}
}

// TestEnrollAThousand: a class of 1,000 enrolls in one call, all or none:
// one look-alike among them refuses them all.
func TestEnrollAThousand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	students := make([]kuis.Student, 1000)
	for i := range students {
		students[i] = kuis.Student{ID: fmt.Sprintf("2024%04d", i), Name: fmt.Sprintf("Murid %04d", i)}
	}
	refused := e.class(classID())
	bad := append(append([]kuis.Student{}, students...), kuis.Student{ID: "20249999", Name: "murid 0500"})
	var ee *kuis.EnrollError
	if err := refused.Enroll(e.ctx, bad...); !errors.As(err, &ee) || !errors.Is(err, kuis.ErrNameTaken) || ee.Holder != students[500] {
		t.Errorf("Enroll of 1,001 with a look-alike last: %v; want ErrNameTaken naming %+v", err, students[500])
	}
	if diff := cmp.Diff(gone(rosterKeys(refused)...), e.dump(rosterKeys(refused)...)); diff != "" {
		t.Errorf("a refused Enroll of 1,001 wrote (-want +got):\n%s", diff)
	}
	c := e.class(classID())
	if err := c.Enroll(e.ctx, students...); err != nil {
		t.Fatalf("Enroll of 1,000: %v", err)
	}
	wantStudents(t, e, c, students)
	if got, err := c.Lookup(e.ctx, "Murid 0999"); err != nil || got != students[999] {
		t.Errorf("Lookup(Murid 0999) = %+v, %v", got, err)
	}
}

// TestEnrollRace: Enrolls racing for one name, each of another ID: exactly
// one wins, every other is refused ErrNameTaken naming the winner, and the
// roster holds the winner alone.
func TestEnrollRace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const racers = 8
	for round := range 10 {
		c := e.class(classID())
		start := make(chan struct{})
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i := range racers {
			name := "Sekar"
			if i%2 == 1 {
				name = "SEKAR" // a look-alike races too
			}
			wg.Go(func() {
				<-start
				errs[i] = c.Enroll(e.ctx, kuis.Student{ID: fmt.Sprintf("S%d", i), Name: name})
			})
		}
		close(start)
		wg.Wait()
		var winner []int
		for i, err := range errs {
			if err == nil {
				winner = append(winner, i)
			}
		}
		if len(winner) != 1 {
			t.Fatalf("round %d: %d Enrolls won (%v); want one", round, len(winner), errs)
		}
		got, err := c.Students(e.ctx)
		if err != nil || len(got) != 1 || got[0].ID != fmt.Sprintf("S%d", winner[0]) {
			t.Fatalf("round %d: Students = %v, %v; want the winner S%d alone", round, got, err, winner[0])
		}
		for i, err := range errs {
			var ee *kuis.EnrollError
			if i != winner[0] && (!errors.As(err, &ee) || !errors.Is(err, kuis.ErrNameTaken) || ee.Holder != got[0]) {
				t.Errorf("round %d: racer %d: %v; want ErrNameTaken naming %+v", round, i, err, got[0])
			}
		}
	}
}

// TestWithdraw: withdrawn students leave the roster with their names and
// look-alike keys, so that another ID may take the name; an ID not enrolled
// is no error; an ID out of the rule, or too many, refuses the call before
// any I/O.
func TestWithdraw(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	students := []kuis.Student{{"S1", "Ali"}, {"S2", "Budi"}, {"S3", "TOM"}, {"S4", "Dewi"}}
	c := e.enrolled(students...)
	if err := c.Withdraw(e.ctx, "S3", "S9", "S1", "S3"); err != nil {
		t.Fatalf("Withdraw: %v", err)
	}
	wantStudents(t, e, c, []kuis.Student{{"S2", "Budi"}, {"S4", "Dewi"}})
	for _, s := range []kuis.Student{{"S1", "Ali"}, {"S3", "TOM"}} {
		if err := errOf(c.Student(e.ctx, s.ID)); !errors.Is(err, kuis.ErrNotEnrolled) {
			t.Errorf("Student(%q) after Withdraw: %v; want ErrNotEnrolled", s.ID, err)
		}
		if err := errOf(c.Lookup(e.ctx, s.Name)); !errors.Is(err, kuis.ErrNotEnrolled) {
			t.Errorf("Lookup(%q) after Withdraw: %v; want ErrNotEnrolled", s.Name, err)
		}
	}
	// The names, and their look-alikes, are free again.
	if err := c.Enroll(e.ctx, kuis.Student{ID: "S5", Name: "\u03a4\u039f\u039c"}, kuis.Student{ID: "S1", Name: "Alia"}); err != nil {
		t.Fatalf("Enroll after Withdraw: %v", err)
	}
	wantStudents(t, e, c, []kuis.Student{{"S1", "Alia"}, {"S2", "Budi"}, {"S4", "Dewi"}, {"S5", "\u03a4\u039f\u039c"}})
	before := e.dump(rosterKeys(c)...)
	for _, ids := range [][]string{nil, {"S9"}, {"S9", "S10"}} {
		if err := c.Withdraw(e.ctx, ids...); err != nil {
			t.Errorf("Withdraw(%q): %v", ids, err)
		}
	}
	many := make([]string, 5001)
	for i := range many {
		many[i] = fmt.Sprintf("S%d", i)
	}
	for _, ids := range [][]string{{"S2", "S 4"}, {"S2", ""}, many} {
		if err := c.Withdraw(e.ctx, ids...); !errors.Is(err, kuis.ErrInvalidStudent) {
			t.Errorf("Withdraw of %d IDs, the last %q: %v; want ErrInvalidStudent", len(ids), ids[len(ids)-1], err)
		}
	}
	if diff := cmp.Diff(before, e.dump(rosterKeys(c)...)); diff != "" {
		t.Errorf("Withdraws of nobody enrolled, and refused ones, changed keys (-before +after):\n%s", diff)
	}
	if err := c.Withdraw(e.ctx, "S1", "S2", "S4", "S5"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gone(rosterKeys(c)...), e.dump(rosterKeys(c)...)); diff != "" {
		t.Errorf("a class whose every student withdrew (-want +got):\n%s", diff)
	}
}

// TestRosterConcurrentChanges: Enrolls and Withdraws of the same students
// under other names, racing, leave a roster whose three hashes agree.
func TestRosterConcurrentChanges(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.class(classID())
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				id := fmt.Sprintf("S%d", i%5)
				if err := c.Withdraw(e.ctx, id); err != nil && !errors.Is(err, kuis.ErrBusy) {
					errs <- fmt.Errorf("Withdraw(%s): %w", id, err)
				}
				err := c.Enroll(e.ctx, kuis.Student{ID: id, Name: fmt.Sprintf("Murid %d-%d", w, i)})
				if err != nil && !errors.Is(err, kuis.ErrConflict) {
					errs <- fmt.Errorf("Enroll(%s): %w", id, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if v, err := c.Audit(e.ctx); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
		t.Errorf("Audit after the races = %v, %v; want no violations", v, err)
	}
}

// TestEnrollCorruptKeys: a roster key of the wrong type refuses Enroll and
// Withdraw with ErrCorrupt naming it, with nothing written, and the reads
// with ErrCorrupt too.
func TestEnrollCorruptKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i, key := range []func(kuis.ClassKeys) string{kuis.ClassKeys.Roster, kuis.ClassKeys.Names, kuis.ClassKeys.Lookalikes} {
		c := e.enrolled(kuis.Student{ID: "S1", Name: "Ali"})
		k := key(c.Keys())
		e.mustRaw("DEL", k)
		e.mustRaw("SET", k, "x")
		before := e.dump(rosterKeys(c)...)
		for _, call := range []struct {
			name string
			err  error
		}{
			{"Enroll", c.Enroll(e.ctx, kuis.Student{ID: "S2", Name: "Budi"})},
			{"Withdraw", c.Withdraw(e.ctx, "S1")},
		} {
			if !errors.Is(call.err, kuis.ErrCorrupt) || !strings.Contains(call.err.Error(), k) {
				t.Errorf("key %d: %s: %v; want ErrCorrupt naming %s", i, call.name, call.err, k)
			}
		}
		if diff := cmp.Diff(before, e.dump(rosterKeys(c)...)); diff != "" {
			t.Errorf("key %d: refused calls changed keys (-before +after):\n%s", i, diff)
		}
		want := []kuis.Violation{{Key: k, Rule: "type", Detail: "is a string, want a hash"}}
		if i == 0 {
			if err := errOf(c.Students(e.ctx)); !errors.Is(err, kuis.ErrCorrupt) {
				t.Errorf("Students of a roster of the wrong type: %v; want ErrCorrupt", err)
			}
			if err := errOf(c.Student(e.ctx, "S1")); !errors.Is(err, kuis.ErrCorrupt) {
				t.Errorf("Student of a roster of the wrong type: %v; want ErrCorrupt", err)
			}
		}
		if i == 1 {
			if err := errOf(c.Lookup(e.ctx, "Ali")); !errors.Is(err, kuis.ErrCorrupt) {
				t.Errorf("Lookup of names of the wrong type: %v; want ErrCorrupt", err)
			}
		}
		if v, err := c.Audit(e.ctx); err != nil || !cmp.Equal(v, want) {
			t.Errorf("key %d: Audit = %v, %v; want %v", i, v, err, want)
		}
	}
}

// TestClassAudit: Audit reports each way a roster written behind the
// library's back breaks the contract, by rule, in its order.
func TestClassAudit(t *testing.T) {
	t.Parallel()
	type raw []string // a command, then its arguments after the key
	tests := []struct {
		name   string
		roster func(kuis.ClassKeys) string // the key of the command
		cmd    raw
		want   func(kuis.ClassKeys) []kuis.Violation
	}{
		{"a TTL", kuis.ClassKeys.Names, raw{"PEXPIRE", "600000"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Names(), "ttl", ""}}
		}},
		{"a student without names", kuis.ClassKeys.Roster, raw{"HSET", "S3", "Citra"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Names(), "names", `student "S3"'s name "Citra" is missing`},
				{k.Lookalikes(), "lookalike", `student "S3"'s name "Citra" has no key`}}
		}},
		{"a student renamed in the roster alone", kuis.ClassKeys.Roster, raw{"HSET", "S1", "Alia"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Names(), "names", `student "S1"'s name "Alia" is missing`},
				{k.Names(), "names", `name "Ali" names student "S1", whose name is "Alia"`},
				{k.Lookalikes(), "lookalike", `student "S1"'s name "Alia" has no key`},
				{k.Lookalikes(), "lookalike", ""}}
		}},
		{"an ID and a name out of their rules", kuis.ClassKeys.Roster, raw{"HSET", "S 9", " Eka"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Roster(), "student", `student ID "S 9" holds a space at byte 2`},
				{k.Roster(), "name", `student "S 9" has name " Eka", which has white space around it`},
				{k.Names(), "names", `student "S 9"'s name " Eka" is missing`},
				{k.Lookalikes(), "lookalike", `student "S 9"'s name " Eka" has no key`}}
		}},
		{"a name of a student not enrolled", kuis.ClassKeys.Names, raw{"HSET", "Citra", "S3"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Names(), "names", `name "Citra" names student "S3", who is not enrolled`}}
		}},
		{"a name naming another student", kuis.ClassKeys.Names, raw{"HSET", "Ali", "S2"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Names(), "names", `student "S1"'s name "Ali" names student "S2"`},
				{k.Names(), "names", `name "Ali" names student "S2", whose name is "Budi"`}}
		}},
		{"a look-alike written beside its twin", kuis.ClassKeys.Roster, raw{"HSET", "S3", "BUDI"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Names(), "names", `student "S3"'s name "BUDI" is missing`},
				{k.Lookalikes(), "lookalike", `students "S2" and "S3" have names a class would confuse: "Budi" and "BUDI"`}}
		}},
		{"a names hash deleted", kuis.ClassKeys.Names, raw{"DEL"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Names(), "names", `student "S1"'s name "Ali" is missing`},
				{k.Names(), "names", `student "S2"'s name "Budi" is missing`}}
		}},
		{"a stale look-alike key", kuis.ClassKeys.Lookalikes, raw{"HSET", "zzz", "S1"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Lookalikes(), "lookalike", `key "zzz" names student "S1", whose name "Ali" has another`}}
		}},
		{"a roster deleted", kuis.ClassKeys.Roster, raw{"DEL"}, func(k kuis.ClassKeys) []kuis.Violation {
			return []kuis.Violation{{k.Names(), "names", `name "Ali" names student "S1", who is not enrolled`},
				{k.Names(), "names", `name "Budi" names student "S2", who is not enrolled`},
				{k.Lookalikes(), "lookalike", ""}, {k.Lookalikes(), "lookalike", ""}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			c := e.enrolled(kuis.Student{ID: "S1", Name: "Ali"}, kuis.Student{ID: "S2", Name: "Budi"})
			e.mustRaw(tc.cmd[0], tc.roster(c.Keys()), tc.cmd[1:]...)
			got, err := c.Audit(e.ctx)
			if err != nil {
				t.Fatalf("Audit: %v", err)
			}
			want := tc.want(c.Keys())
			ok := len(got) == len(want)
			for i := 0; ok && i < len(want); i++ { // an empty Detail wants any, a Detail its start
				ok = got[i].Key == want[i].Key && got[i].Rule == want[i].Rule && strings.HasPrefix(got[i].Detail, want[i].Detail)
			}
			if !ok {
				t.Errorf("Audit = %v\nwant %v", got, want)
			}
		})
	}
}

// TestForClass: Create stores the class in meta (kelas), Get reads it back
// as Info.Class (JSON "class"), and Audit accepts it; an invalid class ID
// is refused before any I/O, with nothing written.
func TestForClass(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := quizID()
	m := e.meta(id)
	for _, bad := range []string{"", "8 a", "8:a"} {
		if err := m.Create(e.ctx, "Kuis", 3, kuis.InCourse("ipa-8"), kuis.ForClass(bad)); !errors.Is(err, kuis.ErrInvalidClassID) {
			t.Errorf("Create with ForClass(%q): %v; want ErrInvalidClassID", bad, err)
		}
	}
	if diff := cmp.Diff(gone(quizKeys(e, id)...), e.dump(quizKeys(e, id)...)); diff != "" {
		t.Errorf("refused Creates wrote (-want +got):\n%s", diff)
	}
	if err := m.Create(e.ctx, "Kuis", 3, kuis.ForClass("7b"), kuis.InCourse("ipa-8"), kuis.ForClass("8a")); err != nil {
		t.Fatal(err)
	}
	info, err := m.Get(e.ctx)
	want := kuis.Info{Title: "Kuis", Questions: 3, Status: kuis.StatusRunning, Course: "ipa-8", Class: "8a", Visibility: kuis.VisibilityShown}
	if err != nil || info != want {
		t.Errorf("Get = %+v, %v; want %+v", info, err, want)
	}
	if got := e.mustRaw("HGET", e.keys(id).Meta(), "kelas"); got.String() == "" {
		t.Error("meta holds no kelas")
	}
	if kelas, err := e.mustRaw("HGET", e.keys(id).Meta(), "kelas").ToString(); err != nil || kelas != "8a" {
		t.Errorf("meta's kelas = %q, %v; want 8a", kelas, err)
	}
	if b, err := json.Marshal(info); err != nil || !strings.Contains(string(b), `"class":"8a"`) {
		t.Errorf("Info as JSON = %s, %v; want its class", b, err)
	}
	if b, err := json.Marshal(kuis.Info{Title: "Kuis"}); err != nil || strings.Contains(string(b), "class") {
		t.Errorf("Info without a class as JSON = %s, %v; want no class", b, err)
	}
	if v, err := e.store.Audit(e.ctx, id); err != nil || !cmp.Equal(v, []kuis.Violation{}) {
		t.Errorf("Audit = %v, %v; want no violations", v, err)
	}
	if recap, err := e.store.Recap(e.ctx, id); err != nil || recap.Info.Class != "8a" {
		t.Errorf("Recap's Info.Class = %q, %v; want 8a", recap.Info.Class, err)
	}
}

// TestPurgeDeletesRosters: Store.Purge deletes the roster keys with the
// rest of the namespace.
func TestPurgeDeletesRosters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.enrolled(kuis.Student{ID: "S1", Name: "Ali"})
	d := e.enrolled(kuis.Student{ID: "S1", Name: "Budi"}, kuis.Student{ID: "S2", Name: "Citra"})
	id, _, _ := e.reference()
	keys := append(append(rosterKeys(c), rosterKeys(d)...), quizKeys(e, id)...)
	if n, err := e.store.Purge(e.ctx); err != nil || n != 6+5 {
		t.Errorf("Purge = %d, %v; want 11: two rosters of three keys, one quiz of five", n, err)
	}
	if diff := cmp.Diff(gone(keys...), e.dump(keys...)); diff != "" {
		t.Errorf("after Purge (-want +got):\n%s", diff)
	}
}

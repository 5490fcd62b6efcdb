package kuis_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// A teacher enrolls a class from the school's roster, each student by the
// ID the school's systems know them by. A name a class would take for
// another's is refused, whole call and all: here the Greek "ΤΟΜ" beside
// the Latin "TOM". The quiz names its class, and the student's screen
// looks its name up before it joins.
func ExampleClass() {
	mr, err := miniredis.Run()
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	client, err := rueidis.NewClient(rueidis.ClientOption{
		InitAddress:       []string{mr.Addr()},
		DisableCache:      true, // miniredis has no CLIENT TRACKING (client-side caching)
		ForceSingleClient: true, // miniredis fakes a one-node cluster; keep rueidis standalone
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	ctx := context.Background()
	store, err := kuis.New(client)
	if err != nil {
		log.Fatal(err)
	}

	class, err := store.Class("8a")
	if err != nil {
		log.Fatal(err)
	}
	err = class.Enroll(ctx,
		kuis.Student{ID: "0081234501", Name: "Ami"},
		kuis.Student{ID: "0081234502", Name: "Arni"},
		kuis.Student{ID: "0081234503", Name: " TOM "}, // stored as CleanParticipant cleans it
	)
	fmt.Println("enroll:", err)

	err = class.Enroll(ctx, kuis.Student{ID: "0081234504", Name: "Citra"}, kuis.Student{ID: "0081234505", Name: "ΤΟΜ"})
	var refused *kuis.EnrollError
	if errors.As(err, &refused) && errors.Is(err, kuis.ErrNameTaken) {
		fmt.Printf("refused: %s looks like %s, the name of %s\n", refused.Student.Name, refused.Holder.Name, refused.Holder.ID)
	}

	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis IPA", 3, kuis.ForClass("8a")); err != nil {
		log.Fatal(err)
	}
	info, err := meta.Get(ctx)
	if err != nil {
		log.Fatal(err)
	}
	student, err := class.Lookup(ctx, "TOM")
	fmt.Printf("quiz of class %s: %s is student %s (%v)\n", info.Class, student.Name, student.ID, err)

	if err := class.Withdraw(ctx, "0081234502"); err != nil {
		log.Fatal(err)
	}
	students, err := class.Students(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range students {
		fmt.Printf("%s %s\n", s.ID, s.Name)
	}
	// Output:
	// enroll: <nil>
	// refused: ΤΟΜ looks like TOM, the name of 0081234503
	// quiz of class 8a: TOM is student 0081234503 (<nil>)
	// 0081234501 Ami
	// 0081234503 TOM
}

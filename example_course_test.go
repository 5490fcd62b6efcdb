package kuis_test

import (
	"context"
	"fmt"
	"log"

	"github.com/alicebob/miniredis/v2"
	"github.com/kuisboard/kuis"
	"github.com/redis/rueidis"
)

// A course board holds a class's finished quizzes, each folded in once:
// Ali missed the second quiz and keeps his points from the first. A fold
// repeated (a retry, a second click) writes nothing and says so.
func ExampleCourse_Fold() {
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
	course, err := store.Course("ipa-8a")
	if err != nil {
		log.Fatal(err)
	}
	// Two quizzes of three questions: who answered which correctly.
	quizzes := map[string]map[string][]int{
		"kuis-01": {"Ali": {1, 2, 3}, "Budi": {2, 3}, "Citra": {1, 2, 3}},
		"kuis-02": {"Budi": {1, 2, 3}, "Citra": {1}, "Dewi": {1, 3}},
	}
	for _, id := range []string{"kuis-01", "kuis-02"} {
		meta, err := store.Meta(id)
		if err != nil {
			log.Fatal(err)
		}
		board, err := store.Board(id)
		if err != nil {
			log.Fatal(err)
		}
		if err := meta.Create(ctx, "Kuis IPA "+id, 3); err != nil {
			log.Fatal(err)
		}
		var answers []kuis.AnswerInput
		for name, questions := range quizzes[id] {
			for _, q := range questions {
				answers = append(answers, kuis.AnswerInput{Participant: name, Question: q})
			}
		}
		if _, err := board.RecordAnswers(ctx, answers); err != nil {
			log.Fatal(err)
		}
		if err := meta.Finish(ctx); err != nil {
			log.Fatal(err)
		}
		recap, err := store.Recap(ctx, id)
		if err != nil {
			log.Fatal(err)
		}
		fold, err := course.Fold(ctx, recap)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d participants, %d points\n", fold.QuizID, fold.Participants, fold.Points)
	}
	recap, err := store.Recap(ctx, "kuis-02")
	if err != nil {
		log.Fatal(err)
	}
	again, err := course.Fold(ctx, recap)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("again: already folded %v, %d points\n", again.AlreadyFolded, again.Points)

	standings, err := course.Standings(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range standings {
		fmt.Printf("%d. %-5s %d\n", s.Rank, s.Participant, s.Score)
	}
	folded, err := course.Quizzes(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, q := range folded { // each quiz's instance is its log's start entry, a time
		fmt.Printf("%s: %d questions, %d participants, %d points\n", q.QuizID, q.Questions, q.Participants, q.Points)
	}
	// Output:
	// kuis-01: 3 participants, 80 points
	// kuis-02: 3 participants, 60 points
	// again: already folded true, 0 points
	// 1. Budi  50
	// 2. Citra 40
	// 3. Ali   30
	// 4. Dewi  20
	// kuis-01: 3 questions, 3 participants, 80 points
	// kuis-02: 3 questions, 3 participants, 60 points
}

// Teams rank by their members' totals in the course, here one quiz folded
// in as PurgeQuiz archived it. By the sum the team of three is ahead, by the
// mean it is not: a member without points (Eka) counts 0. Sum and Mean are
// both filled whatever the scoring.
func ExampleCourse_Teams() {
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
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	// The contract's reference session: Citra 30, Ali 30, Budi 20, Dewi 10.
	rounds := [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}}
	for q, round := range rounds {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	course, err := store.Course("mtk-8")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := store.PurgeQuiz(ctx, "kuis-01", course.Archive(nil)); err != nil {
		log.Fatal(err)
	}

	teams := []kuis.Team{
		{Name: "Merah", Members: []string{"Ali", "Dewi"}},
		{Name: "Biru", Members: []string{"Citra", "Budi", "Eka"}},
	}
	for _, by := range []kuis.TeamScoring{kuis.TeamSum, kuis.TeamMean} {
		standings, err := course.Teams(ctx, teams, by)
		if err != nil {
			log.Fatal(err)
		}
		for _, s := range standings {
			fmt.Printf("%d. %-5s %d members, sum %d, mean %.2f\n", s.Rank, s.Team, s.Members, s.Sum, s.Mean)
		}
	}
	// Output:
	// 1. Biru  3 members, sum 50, mean 16.67
	// 2. Merah 2 members, sum 40, mean 20.00
	// 1. Merah 2 members, sum 40, mean 20.00
	// 2. Biru  3 members, sum 50, mean 16.67
}

// Team standings of one quiz, read live from its board. Equal scores share a
// competition rank and stand in the order of their team names.
func ExampleBoard_Teams() {
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
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis Matematika Kelas 8", 3); err != nil {
		log.Fatal(err)
	}
	rounds := [][]string{{"Ali", "Citra"}, {"Ali", "Budi", "Citra"}, {"Ali", "Budi", "Citra", "Dewi"}}
	for q, round := range rounds {
		for _, name := range round {
			if _, err := board.RecordAnswer(ctx, name, q+1); err != nil {
				log.Fatal(err)
			}
		}
	}
	teams := []kuis.Team{
		{Name: "Merah", Members: []string{"Ali"}},
		{Name: "Biru", Members: []string{"Citra"}},
		{Name: "Hijau", Members: []string{"Budi", "Dewi", "Eka"}},
	}
	standings, err := board.Teams(ctx, teams, kuis.TeamMean)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range standings {
		fmt.Printf("%d (%d). %-5s mean %.1f of %d\n", s.Rank, s.CompetitionRank, s.Team, s.Mean, s.Members)
	}
	// Output:
	// 1 (1). Biru  mean 30.0 of 1
	// 2 (1). Merah mean 30.0 of 1
	// 3 (3). Hijau mean 10.0 of 3
}

// A recipe: "the top 10 %" of a course board is the standings Top reports in
// it, read page by page until the first that is not: by competition rank, so
// that students tied at its edge are all in or all out.
func ExampleCourse_Page() {
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
	// A quiz of 28 questions: student n answers the first n correctly.
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis IPA", 28); err != nil {
		log.Fatal(err)
	}
	var answers []kuis.AnswerInput
	for n := 1; n <= 28; n++ {
		for q := 1; q <= n; q++ {
			answers = append(answers, kuis.AnswerInput{Participant: fmt.Sprintf("Siswa %02d", n), Question: q})
		}
	}
	if _, err := board.RecordAnswers(ctx, answers); err != nil {
		log.Fatal(err)
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	course, err := store.Course("ipa-8a")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := store.PurgeQuiz(ctx, "kuis-01", course.Archive(nil)); err != nil {
		log.Fatal(err)
	}

	size, err := course.Len(ctx)
	if err != nil {
		log.Fatal(err)
	}
	var top []kuis.Standing
	for offset, more := 0, true; more; offset += 10 {
		page, err := course.Page(ctx, offset, 10)
		if err != nil {
			log.Fatal(err)
		}
		more = len(page) == 10
		for _, s := range page {
			if !s.Top(10, size) {
				more = false
				break
			}
			top = append(top, s)
		}
	}
	fmt.Printf("the top 10 %% of %d:\n", size)
	for _, s := range top {
		fmt.Printf("%d. %s, %d points\n", s.CompetitionRank, s.Participant, s.Score)
	}
	// Output:
	// the top 10 % of 28:
	// 1. Siswa 28, 280 points
	// 2. Siswa 27, 270 points
	// 3. Siswa 26, 260 points
}

// A recipe: a student's line "rank 3 of 28" is Standing's CompetitionRank,
// which students of equal totals share, and the board's Len.
func ExampleCourse_Standing() {
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
	// A quiz of 28 questions: student n answers the first n correctly.
	meta, err := store.Meta("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	board, err := store.Board("kuis-01")
	if err != nil {
		log.Fatal(err)
	}
	if err := meta.Create(ctx, "Kuis IPA", 28); err != nil {
		log.Fatal(err)
	}
	var answers []kuis.AnswerInput
	for n := 1; n <= 28; n++ {
		for q := 1; q <= n; q++ {
			answers = append(answers, kuis.AnswerInput{Participant: fmt.Sprintf("Siswa %02d", n), Question: q})
		}
	}
	if _, err := board.RecordAnswers(ctx, answers); err != nil {
		log.Fatal(err)
	}
	if err := meta.Finish(ctx); err != nil {
		log.Fatal(err)
	}
	course, err := store.Course("ipa-8a")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := store.PurgeQuiz(ctx, "kuis-01", course.Archive(nil)); err != nil {
		log.Fatal(err)
	}

	mine, err := course.Standing(ctx, "Siswa 26")
	if err != nil {
		log.Fatal(err)
	}
	size, err := course.Len(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: rank %d of %d, %d points\n", mine.Participant, mine.CompetitionRank, size, mine.Score)
	// Output:
	// Siswa 26: rank 3 of 28, 260 points
}

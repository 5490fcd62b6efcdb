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
	// "jumlah_soal", "status", "score", "member" or "answer".
	Rule string `json:"rule"`
	// Detail says what was found, naming the field or member.
	Detail string `json:"detail"`
}

// String formats the violation as "key: rule: detail".
func (v Violation) String() string { return v.Key + ": " + v.Rule + ": " + v.Detail }

// The contract's keys, as ContractTable prints them (revision 2 adds the answers set).
type contractRow struct {
	key                                  func(Keys) string
	typ, writer, readers, content, scale string
}

var contractRows = []contractRow{
	{Keys.Board, "sorted set", "quiz application", "students and teacher",
		"member = participant name, score = cumulative points (10 per correct answer)",
		"one key per quiz, one member per participant"},
	{Keys.Meta, "hash", "teacher", "teacher and quiz application",
		"fields `judul` (title), `jumlah_soal` (question count), `status` (`berjalan` or `selesai`)",
		"one key per quiz, three fields"},
	{Keys.Answers, "set", "quiz application", "quiz application and teacher (audit)",
		"member = `<question>:<participant>` per counted answer (revision 2)",
		"one key per quiz, one member per counted answer"},
}

// ContractTable returns the contract's key table (revision 2) as Markdown,
// with the key names the options select and <quiz> standing for the quiz ID.
// It does no I/O. Error: ErrInvalidNamespace.
func ContractTable(opts ...Option) (string, error) {
	o, err := resolve(opts)
	if err != nil {
		return "", err
	}
	k := keyNames(o, "<quiz>")
	var b strings.Builder
	b.WriteString("| key | type | writer | readers | content | scale | TTL |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range contractRows {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | none while the quiz runs |\n",
			r.key(k), r.typ, r.writer, r.readers, r.content, r.scale)
	}
	return b.String(), nil
}

// Audit checks the live keys of one quiz against the contract and returns one
// Violation per problem, in the order it checks: the TYPE and TTL of each key
// (meta, board, answers), then the meta fields (or a missing meta), the board's
// members, the answer members, and last each participant's score against
// their counted answers. It reports a wrong TYPE, any TTL, missing or
// unexpected meta fields, an invalid judul, a jumlah_soal that is not a
// positive integer, an unknown status, a score that is not a non-negative
// multiple of 10, an invalid participant name, a malformed answer member or
// one above jumlah_soal, and a participant whose score is below 10 x their
// counted answers. An empty result means the quiz keeps the contract.
//
// Commands: TYPE and PTTL of the three keys, HGETALL meta, ZRANGE board 0 -1
// WITHSCORES, SMEMBERS answers: O(N) in the board and answers, so run it when
// auditing, not on every request. Plain commands per key, so it also runs on a
// cluster without WithHashTag. A quiz none of whose keys exist is
// ErrQuizNotFound.
func Audit(ctx context.Context, client rueidis.Client, quizID string, opts ...Option) ([]Violation, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	k, err := keysFor(quizID, o)
	if err != nil {
		return nil, err
	}
	if client == nil {
		return nil, ErrNoClient
	}
	a := auditor{ctx: ctx, client: client, keys: k}
	return a.run()
}

// auditor collects the violations of one quiz.
type auditor struct {
	ctx    context.Context
	client rueidis.Client
	keys   Keys
	found  []Violation
}

func (a *auditor) add(key, rule, format string, args ...any) {
	a.found = append(a.found, Violation{Key: key, Rule: rule, Detail: fmt.Sprintf(format, args...)})
}

func (a *auditor) run() ([]Violation, error) {
	k := a.keys
	want := map[string]string{k.meta: "hash", k.board: "zset", k.answers: "set"}
	types := map[string]string{}
	var present int
	for _, key := range k.all() {
		t, err := a.client.Do(a.ctx, a.client.B().Type().Key(key).Build()).ToString()
		if err != nil {
			return nil, replyError(err, key)
		}
		types[key] = t
		if t == "none" {
			continue
		}
		present++
		if t != want[key] {
			a.add(key, "type", "is a %s, want a %s", t, want[key])
		}
		ttl, err := a.client.Do(a.ctx, a.client.B().Pttl().Key(key).Build()).AsInt64()
		if err != nil {
			return nil, replyError(err, key)
		}
		if ttl != -1 {
			a.add(key, "ttl", "expires in %d ms; the contract allows no TTL", ttl)
		}
	}
	if present == 0 {
		return nil, errNotFound(k.meta)
	}
	questions := 0 // unknown unless meta decodes
	switch types[k.meta] {
	case "hash":
		var err error
		if questions, err = a.meta(); err != nil {
			return nil, err
		}
	case "none":
		a.add(k.meta, "exists", "missing while other keys of the quiz exist")
	}
	var scores map[string]int64 // nil: the board is unusable, so answers are not compared with it
	switch types[k.board] {
	case "zset":
		var err error
		if scores, err = a.board(); err != nil {
			return nil, err
		}
	case "none":
		scores = map[string]int64{}
	}
	if types[k.answers] == "set" {
		if err := a.answers(questions, scores); err != nil {
			return nil, err
		}
	}
	return a.found, nil
}

// meta checks the hash's fields and returns jumlah_soal (0 if invalid).
func (a *auditor) meta() (int, error) {
	key := a.keys.meta
	fields, err := a.client.Do(a.ctx, a.client.B().Hgetall().Key(key).Build()).AsStrMap()
	if err != nil {
		return 0, replyError(err, key)
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
		a.add(key, "field", "unexpected field %q", f)
	}
	if t, ok := fields[fieldTitle]; ok && !validText(t, maxTitleLen) {
		a.add(key, "judul", "judul %q is not 1 to %d bytes of UTF-8 without control characters", t, maxTitleLen)
	}
	questions := 0
	if s, ok := fields[fieldQuestions]; ok {
		n, err := decodeQuestions(key, s)
		if err != nil {
			a.add(key, "jumlah_soal", "jumlah_soal is %q, want a positive integer", s)
		}
		questions = n
	}
	if s, ok := fields[fieldStatus]; ok {
		if _, err := decodeStatus(key, s); err != nil {
			a.add(key, "status", "status is %q, want %q or %q", s, StatusRunning, StatusFinished)
		}
	}
	return questions, nil
}

// board checks every member and score and returns the scores.
func (a *auditor) board() (map[string]int64, error) {
	key := a.keys.board
	zs, err := a.client.Do(a.ctx, a.client.B().Zrange().Key(key).Min("0").Max("-1").Withscores().Build()).AsZScores()
	if err != nil {
		return nil, replyError(err, key)
	}
	scores := make(map[string]int64, len(zs))
	for _, z := range zs {
		if !validText(z.Member, maxParticipantLen) {
			a.add(key, "member", "participant %q is not 1 to %d bytes of UTF-8 without control characters", z.Member, maxParticipantLen)
		}
		if _, err := decodeScore(key, z.Member, z.Score); err != nil {
			a.add(key, "score", "member %q has score %v, want a non-negative multiple of 10", z.Member, z.Score)
		}
		scores[z.Member] = int64(z.Score)
	}
	return scores, nil
}

// answers checks every answer member and that no participant has fewer
// points than 10 x their counted answers. questions is 0 when meta is unusable,
// and scores nil when the board is of the wrong type.
func (a *auditor) answers(questions int, scores map[string]int64) error {
	key := a.keys.answers
	members, err := a.client.Do(a.ctx, a.client.B().Smembers().Key(key).Build()).AsStrSlice()
	if err != nil {
		return replyError(err, key)
	}
	sort.Strings(members)
	counted := map[string]int64{}
	for _, m := range members {
		q, participant, ok := strings.Cut(m, ":")
		n, err := strconv.Atoi(q)
		switch {
		case !ok || err != nil || n < 1 || strconv.Itoa(n) != q:
			a.add(key, "answer", "member %q is not <question>:<participant>", m)
			continue
		case !validText(participant, maxParticipantLen):
			a.add(key, "answer", "member %q names an invalid participant", m)
			continue
		case questions > 0 && n > questions:
			a.add(key, "answer", "member %q answers question %d of %d", m, n, questions)
		}
		counted[participant]++
	}
	if scores == nil {
		return nil
	}
	names := make([]string, 0, len(counted))
	for p := range counted {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if got, want := scores[p], 10*counted[p]; got < want {
			a.add(a.keys.board, "score", "member %q has %d points for %d counted answers, want at least %d", p, got, counted[p], want)
		}
	}
	return nil
}

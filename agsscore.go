package kuis

import "time"

// AGSScore is one score for the score publish service of IMS LTI
// Assignment and Grade Services 2.0 (the body a tool POSTs, as
// application/vnd.ims.lis.v1.score+json, to a line item's /scores): its JSON
// field names are the specification's. kuis makes no HTTP call and holds no
// LTI dependency; the caller posts each score with its own platform client.
type AGSScore struct {
	// UserID is the student's ID: for LTI, the platform's user ID (the
	// launch's sub), which is what a roster should hold for a quiz graded
	// through AGS.
	UserID string `json:"userId"`
	// ScoreGiven is the student's points; nil (left out of the JSON) for a
	// student who did not take part, so that the platform records no score
	// rather than 0. A present student with no correct answer has 0.
	ScoreGiven *float64 `json:"scoreGiven,omitempty"`
	// ScoreMaximum is the points possible: 10 x the quiz's questions.
	ScoreMaximum float64 `json:"scoreMaximum"`
	// Comment is shown to the student and teacher; AGSScores leaves it empty
	// (and so out of the JSON) for the caller to fill.
	Comment string `json:"comment,omitempty"`
	// ActivityProgress is "Completed" for a present student and
	// "Initialized" (not started) for an absent one.
	ActivityProgress string `json:"activityProgress"`
	// GradingProgress is "FullyGraded" for a present student and "NotReady"
	// (no grading done) for an absent one.
	GradingProgress string `json:"gradingProgress"`
	// Timestamp is when the score was set, ISO 8601 with sub-second
	// precision as the specification requires: RFC 3339 in UTC to the
	// millisecond ("2026-11-30T09:15:02.125Z"). The platform keeps the
	// score whose timestamp is latest.
	Timestamp string `json:"timestamp"`
}

// AGSScores returns one AGSScore per enrolled student of roster, in
// Grades' order: a present student (on the board, 0 points included) with
// ScoreGiven, "Completed" and "FullyGraded"; an absent one without
// ScoreGiven, "Initialized" and "NotReady". Participants the roster lacks
// are left out: the platform knows no user for them. ScoreMaximum is 10 x
// the quiz's questions; Timestamp is the recap's FinishedAt, or TakenAt for
// a quiz recapped before its finish, in UTC to the millisecond, on every
// score. It does no I/O; a roster with an ID or a name twice is read as
// Grades reads it.
func (r Recap) AGSScores(roster []Student) []AGSScore {
	at := r.gradedAt().UTC().Format(millisUTC)
	scores := make([]AGSScore, 0, len(roster))
	for _, g := range r.Grades(roster) {
		s := AGSScore{UserID: g.StudentID, ScoreMaximum: float64(g.Possible), Timestamp: at}
		switch g.Attendance {
		case Present:
			given := float64(g.Score)
			s.ScoreGiven, s.ActivityProgress, s.GradingProgress = &given, "Completed", "FullyGraded"
		case Absent:
			s.ActivityProgress, s.GradingProgress = "Initialized", "NotReady"
		default:
			continue
		}
		scores = append(scores, s)
	}
	return scores
}

// gradedAt is when the recap's grades were set: the finish, or the
// snapshot's time for a quiz recapped while it ran (or finished without a
// finish entry).
func (r Recap) gradedAt() time.Time {
	if !r.FinishedAt.IsZero() {
		return r.FinishedAt
	}
	return r.TakenAt
}

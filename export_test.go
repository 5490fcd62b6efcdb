package kuis

import "time"

// WithScanCount lets the external tests choose SCAN's page size.
var WithScanCount = withScanCount

// WithRepairStep lets the external tests make Repair rebuild small boards.
var WithRepairStep = withRepairStep

// WithRecapLimit lets the external tests make Recap read small quizzes in parts.
var WithRecapLimit = withRecapLimit

// WithScanHook lets the external tests act after every SCAN page of Purge and
// Quizzes, with the address of the node scanned.
var WithScanHook = withScanHook

// The coalescer's bounds, for the tests that fill its queues.
const (
	MaxChunk    = maxChunk
	MaxInFlight = maxInFlight
)

// Queued is how many RecordAnswer calls to quiz quizID wait in s's queue.
func Queued(s *Store, quizID string) int {
	k, err := s.Keys(quizID)
	if err != nil {
		return 0
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	if l := s.rec.lanes[k.board]; l != nil {
		return len(l.queue)
	}
	return 0
}

// SetFeedBlock shortens how long one XREAD of Board.Events blocks, so that a
// test sees a quiz finished without a finish entry end quickly. It returns
// the function that restores it.
func SetFeedBlock(d time.Duration) (restore func()) {
	old := feedBlock
	feedBlock = d
	return func() { feedBlock = old }
}

// SetMemberBuffer sets how many batches a feed hub's member may fall behind
// before it is dropped and catches up alone. It returns the function that
// restores it.
func SetMemberBuffer(n int) (restore func()) {
	old := memberBuffer
	memberBuffer = n
	return func() { memberBuffer = old }
}

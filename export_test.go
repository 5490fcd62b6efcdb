package kuis

import "time"

// WithScanCount lets the external tests choose SCAN's page size.
var WithScanCount = withScanCount

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

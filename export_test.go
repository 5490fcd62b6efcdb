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

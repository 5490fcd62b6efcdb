package kuis

// WithScanCount lets the external tests choose SCAN's page size.
var WithScanCount = withScanCount

// WithScanHook lets the external tests act after every SCAN page of Purge and
// Quizzes, with the address of the node scanned.
var WithScanHook = withScanHook

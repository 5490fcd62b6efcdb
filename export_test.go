package kuis

// WithScanCount lets the external tests choose SCAN's page size.
var WithScanCount = withScanCount

package kuis

// WithScanCount lets the external tests choose SCAN's page size.
var WithScanCount = withScanCount

// WithRepairStep lets the external tests make Repair rebuild small boards.
var WithRepairStep = withRepairStep

// WithRecapLimit lets the external tests make Recap read small quizzes in parts.
var WithRecapLimit = withRecapLimit

// WithScanHook lets the external tests act after every SCAN page of Purge and
// Quizzes, with the address of the node scanned.
var WithScanHook = withScanHook

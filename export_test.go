package kuis

// WithScanCount lets the external tests choose SCAN's page size.
var WithScanCount = withScanCount

// WithRepairStep lets the external tests make Repair rebuild small boards.
var WithRepairStep = withRepairStep

// WithRecapLimit lets the external tests make Recap read small quizzes in parts.
var WithRecapLimit = withRecapLimit

// Package wire is the one codec of kuis's wire formats in Go: stream entry
// IDs, the answer log's entries, the answers set's pairs, the order set's
// places, the meta hash's fields, and the bounds that keep each sound. Its
// functions are pure: they decode what a reader got from Redis and encode
// what a writer sends, and know nothing of connections.
//
// The Lua scripts hold the same codec once, in internal/script/prelude.lua,
// and a test checks the prelude's constants against these. One rule holds for
// a question number everywhere, in a log entry as in an answers set member:
// a positive decimal without sign or leading zeros, at most the quiz's
// jumlah_soal, itself at most MaxQuestions. Anything else in a stored entry
// or member is corrupt, the same way in Go and in Lua.
package wire

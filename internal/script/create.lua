-- create.lua (after prelude.lua): the teacher creates a quiz.
-- KEYS: every key of the quiz, meta first (meta, board, answers, log, order)
-- ARGV[1] judul (title), ARGV[2] jumlah_soal (question count, validated in
-- Go), ARGV[3] the start entry's sequence: random, of 2^63 or more; then
-- any more meta fields, as field-value pairs named and checked in Go
-- (kursus, the course the quiz names; kelas, the class)
-- Reply: 1. Refusals: KUIS_FORBIDDEN, KUIS_EXISTS when any key of the quiz
-- exists (a new quiz never inherits an old board), and nothing is written.
-- The log starts with the start entry (the single field status = berjalan).
-- Its ID is the server's time with a sequence of 2^63 or more, so that it
-- sorts after every entry an earlier log of the key could hold (an earlier
-- quiz of the same ID, purged, whose entries have earlier times or, in the
-- same millisecond, small sequences), and the answers that follow keep their
-- time: a feed reader of the earlier quiz, following it or resuming after
-- one of its IDs, meets this start entry and knows its quiz is gone. The
-- sequence is random, so that the ID marks this quiz alone, even beside one
-- created under the same ID in the same millisecond (PurgeQuiz checks it).
local g = gate()
local err = g.permitted({'HSET', KEYS[1], 'judul', ARGV[1]}, {'XADD', KEYS[4], '*', logStatus, 'berjalan'})
if err then
  return err
end
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then
    return g.refuse('KUIS_EXISTS')
  end
end
local meta = {KEYS[1], 'judul', ARGV[1], 'jumlah_soal', ARGV[2], 'status', 'berjalan'}
for i = 4, #ARGV do
  meta[#meta + 1] = ARGV[i]
end
redis.call('HSET', unpack(meta))
local now = redis.call('TIME')
redis.call('XADD', KEYS[4], string.format(int, tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)) .. '-' .. ARGV[3],
  logStatus, 'berjalan')
return 1

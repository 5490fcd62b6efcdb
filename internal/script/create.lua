-- create.lua (after prelude.lua): the teacher creates a quiz.
-- KEYS: every key of the quiz, meta first (meta, board, answers, log, order)
-- ARGV[1] judul (title), ARGV[2] jumlah_soal (question count, validated in Go)
-- Reply: 1. Refusals: KUIS_FORBIDDEN, KUIS_EXISTS when any key of the quiz
-- exists (a new quiz never inherits an old board), and nothing is written.
-- The log starts with the start entry (the single field status = berjalan):
-- a feed reader that meets another start entry knows its quiz was purged and
-- a new one of the same ID created.
local g = gate()
local err = g.permitted({'HSET', KEYS[1], 'judul', ARGV[1]}, {'XADD', KEYS[4], '*', 'status', 'berjalan'})
if err then
  return err
end
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then
    return g.refuse('KUIS_EXISTS')
  end
end
redis.call('HSET', KEYS[1], 'judul', ARGV[1], 'jumlah_soal', ARGV[2], 'status', 'berjalan')
redis.call('XADD', KEYS[4], '*', 'status', 'berjalan')
return 1

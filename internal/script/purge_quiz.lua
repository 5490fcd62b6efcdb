-- purge_quiz.lua (after prelude.lua): delete one finished quiz, all keys at once.
-- KEYS: every key of the quiz, meta first (meta, board, answers, log, order,
-- repair board, repair order set)
-- Reply: the number of keys deleted. Refusals (nothing deleted):
-- KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_RUNNING, KUIS_CORRUPT. The status is
-- checked again here because the recap was archived in an earlier step: a
-- quiz recreated since then must not lose its new data.
local g = gate()
local err = g.deletable(KEYS)
if err then
  return err
end
local s, _, err = g.status(KEYS[1])
if err then
  return err
end
if s ~= 'selesai' then
  return g.refuse('KUIS_RUNNING')
end
return redis.call('UNLINK', unpack(KEYS))

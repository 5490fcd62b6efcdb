-- purge_quiz.lua (after prelude.lua): delete one finished quiz, all keys at once.
-- KEYS: every key of the quiz, meta first (meta, board, answers, log, order,
-- repair board, repair order set)
-- ARGV[1]: the ID of the log's first entry when the quiz was recapped ('' for
-- none): the mark of the quiz that Create made.
-- Reply: the number of keys deleted. Refusals (nothing deleted):
-- KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_RUNNING, KUIS_CHANGED (the keys are
-- another quiz's now: the recapped one was purged and created again),
-- KUIS_CORRUPT. The status and the mark are checked here because the recap
-- was archived in an earlier step: a quiz created since must not lose data
-- nobody archived.
local g = gate()
local err = g.deletable(KEYS)
if err then
  return err
end
local s, _, err = metaState(KEYS[1])
if err then
  return err
end
local first, err = g.call('not a stream', 'XRANGE', KEYS[4], '-', '+', 'COUNT', 1)
if err then
  return err
end
if (first[1] and first[1][1] or '') ~= ARGV[1] then
  return g.refuse('KUIS_CHANGED')
end
if s ~= 'selesai' then
  return g.refuse('KUIS_RUNNING')
end
return redis.call('UNLINK', unpack(KEYS))

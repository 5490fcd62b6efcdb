-- finish.lua (after prelude.lua): the teacher closes a quiz.
-- KEYS[1] meta, KEYS[2] log, KEYS[3] answers
-- Reply: 1 when status went from berjalan to selesai, 0 when it was already
-- selesai. Refusals (nothing written): KUIS_FORBIDDEN, KUIS_NOTFOUND,
-- KUIS_CORRUPT.
--
-- The status change and the log's finish entry (the single field status =
-- selesai, ID = the server's time) are one write, so the entry exists if and
-- only if the quiz was finished. A quiz whose answers were counted before the
-- log existed (answers but no log) gets no entry: a log holding only the
-- finish would wrongly say that its answers were never logged. Readers of
-- the feed see that quiz finish by its status instead.
local meta, log, answers = KEYS[1], KEYS[2], KEYS[3]
local g = gate()
local err = g.permitted({'HSET', meta, 'status', 'selesai'}, {'XADD', log, '*', logStatus, 'selesai'})
if err then
  return err
end
local s, _, err = metaState(meta)
if err then
  return err
end
if s == 'selesai' then
  return 0
end
-- Finishing must not depend on the other keys being sound: a log or an
-- answers set of the wrong type (Audit reports it), or a log that takes no
-- entry (its last ID is the greatest possible: only a raw write makes one),
-- gets no entry, and the status still changes.
local isStream = type(redis.pcall('XLEN', log)) == 'number' -- a missing log too
local counted = redis.pcall('SCARD', answers)            -- an error reply when not a set
if isStream and (redis.call('EXISTS', log) == 1 or counted == 0) then
  redis.pcall('XADD', log, '*', logStatus, 'selesai')
end
redis.call('HSET', meta, 'status', 'selesai')
return 1

-- erase.lua (after prelude.lua): the operator erases one participant from
-- one quiz that is not running, in one atomic step.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order
-- ARGV[1] the participant, ARGV[2] n, then n answers set members to remove
-- (each '<question>:<participant>'), then the IDs of the log entries to
-- remove, as the caller read them. An entry whose peserta is not the
-- participant (or that is gone) stays, so that a stale read removes no one
-- else's.
-- Reply: {score, answers removed, entries removed, order members removed}:
-- score the board's, as the server wrote it, or '' when the board did not
-- hold the participant. Refusals, with nothing written: KUIS_FORBIDDEN;
-- KUIS_RUNNING when the meta's status is berjalan (their next answer would
-- count again); KUIS_CORRUPT for a key of the wrong type.
local g = gate()
local meta, board, answers, log, order = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local who, n = ARGV[1], tonumber(ARGV[2])
local err = g.permitted({'ZREM', board, 'p'}, {'ZREM', order, 'p'}, {'SREM', answers, 'm'}, {'XDEL', log, '0-1'})
if err then
  return err
end
local f = redis.pcall('HMGET', meta, 'status')
if f.err then
  return refusal(f, meta, 'not a hash')
end
if f[1] == 'berjalan' then
  return g.refuse('KUIS_RUNNING')
end
local _, err = g.sizes(board, answers, log, order)
if err then
  return err
end
-- step bounds the arguments of one call: unpack has a bound.
local step = 500
local ids = {}
for i = 3 + n, #ARGV do
  local e = redis.call('XRANGE', log, ARGV[i], ARGV[i], 'COUNT', 1)[1]
  if e then
    local fields = e[2]
    for j = 1, #fields, 2 do
      if fields[j] == logParticipant then
        if fields[j + 1] == who then
          ids[#ids + 1] = ARGV[i]
        end
        break
      end
    end
  end
end
local score = redis.call('ZSCORE', board, who) or ''
local removed, deleted = 0, 0
for i = 3, 2 + n, step do
  removed = removed + redis.call('SREM', answers, unpack(ARGV, i, math.min(i + step - 1, 2 + n)))
end
for i = 1, #ids, step do
  deleted = deleted + redis.call('XDEL', log, unpack(ids, i, math.min(i + step - 1, #ids)))
end
redis.call('ZREM', board, who)
local placed = redis.call('ZREM', order, who)
return {score, removed, deleted, placed}

-- repair_swap.lua (after prelude.lua): finish Repair's rebuild. It adds to the
-- repair keys the answers logged after the rebuild's snapshot, a bounded
-- number per call; once none is left, it replaces the board and the order
-- set by the repair keys in the same step, so a reader sees the old board or
-- the new one.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order,
-- KEYS[6] repair board, KEYS[7] repair order set
-- ARGV[1] the rebuild's token, ARGV[2] the ID of the last log entry the
-- repair keys hold ("0-0" for none), ARGV[3] the most log entries to add in
-- this call.
-- Every entry after ARGV[2] is an answer counted after the snapshot (the
-- record script writes the entry and the answer together), so it adds 10
-- points; an entry whose answer the answers set does not hold (written
-- behind the library's back) adds nothing. A join entry after ARGV[2] puts
-- its participant in the repair keys with 0 points, placed at its time,
-- unless they are there.
-- Reply: {'more', ID of the last entry added} while entries remain, then
-- {'done'}. Refusals (nothing replaced): KUIS_BUSY (another rebuild took the
-- repair keys over), KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_CORRUPT.
local meta, board, answers, log, order, stage, stageOrder = unpack(KEYS)
local token, after, most = ARGV[1], ARGV[2], tonumber(ARGV[3])
local g = gate()
local _, n, err = g.intact({{'UNLINK', board}, {'UNLINK', order}, {'RENAME', stage, board}, {'RENAME', stageOrder, order},
  {'ZADD', stage, '0', 'x'}, {'ZADD', stageOrder, '0', 'x'}, {'ZREM', stage, 'x'}}, meta, board, answers, log, order)
if err then
  return err
end
if redis.call('ZSCORE', stage, token) == false then
  return g.refuse('KUIS_BUSY')
end

local entries = redis.call('XRANGE', log, after, '+', 'COUNT', most + 2)
if entries[1] and entries[1][1] == after then
  table.remove(entries, 1)
end
for i = 1, math.min(#entries, most) do
  local p, q = answerOf(entries[i], n)
  if p and redis.call('SISMEMBER', answers, q .. ':' .. p) == 1 then
    local score = (tonumber(redis.call('ZSCORE', stage, p)) or 0) + 10
    redis.call('ZADD', stage, score, p)
    redis.call('ZADD', stageOrder, place(score / 10, timeOf(entries[i][1])), p)
  elseif not p then
    p = joinOf(entries[i])
    if p and not redis.call('ZSCORE', stage, p) then
      redis.call('ZADD', stage, 0, p)
      redis.call('ZADD', stageOrder, place(0, timeOf(entries[i][1])), p)
    end
  end
end
if #entries > most then
  return {'more', entries[most][1]}
end

-- Caught up: swap. UNLINK frees the old sets in the background, RENAME onto
-- a missing key is O(1), and a repair key emptied of its token is gone.
redis.call('ZREM', stage, token)
redis.call('UNLINK', board, order)
if redis.call('EXISTS', stage) == 1 then
  redis.call('RENAME', stage, board)
end
if redis.call('EXISTS', stageOrder) == 1 then
  redis.call('RENAME', stageOrder, order)
end
return {'done'}

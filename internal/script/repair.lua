-- repair.lua (after prelude.lua): set participants' scores to 10 x their counted
-- answers, and their places in the order set to match, in one atomic step.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order,
-- KEYS[6] repair board, KEYS[7] repair order set (deleted: a rebuild that
-- stopped midway leaves them)
-- ARGV[1] the ID of the last log entry the caller read ("0-0" for none), or
-- 'check' to correct nothing, then pairs of participant, time in ms of their
-- latest answer in that read of the log (0 for none).
-- Each participant's answers are recounted here (SISMEMBER of 1..jumlah_soal),
-- and log entries after ARGV[1] update the times, so answers counted since
-- the caller's read are not undone.
-- Reply: a flat list of participant, score before ('' when none), score
-- after, for every participant whose board entry is not 10 x their counted
-- answers, all of one moment (and changed unless 'check'). Refusals (nothing
-- written): KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_CORRUPT.
local meta, board, answers, log, order, stage, stageOrder = unpack(KEYS)
local g = gate()
local _, n, err = g.intact({{'ZADD', board, '0', 'x'}, {'ZREM', board, 'x'}, {'ZADD', order, '0', 'x'}, {'ZREM', order, 'x'},
  {'UNLINK', stage}, {'UNLINK', stageOrder}}, meta, board, answers, log, order)
if err then
  return err
end

local check = ARGV[1] == 'check'
local latest = {}
for i = 2, #ARGV, 2 do
  latest[ARGV[i]] = tonumber(ARGV[i + 1])
end
for _, entry in ipairs(check and {} or redis.call('XRANGE', log, ARGV[1], '+')) do
  if entry[1] ~= ARGV[1] then
    -- Only an entry of a counted answer places its participant.
    local p, q = answerOf(entry, n)
    if p and redis.call('SISMEMBER', answers, q .. ':' .. p) == 1 then
      latest[p] = timeOf(entry[1])
    end
  end
end

local out = {}
for i = 2, #ARGV, 2 do
  local p = ARGV[i]
  local count = 0
  for q = 1, storedName(p) and n or 0 do
    if redis.call('SISMEMBER', answers, q .. ':' .. p) == 1 then
      count = count + 1
    end
  end
  local was, now = redis.call('ZSCORE', board, p), count * 10
  if (was or count > 0) and tonumber(was) ~= now then
    table.insert(out, p)
    table.insert(out, was or '')
    table.insert(out, tostring(now))
  end
  if check then
  elseif count == 0 then
    redis.call('ZREM', order, p)
    redis.call('ZREM', board, p)
  else
    if tonumber(was) ~= now then
      redis.call('ZADD', board, now, p)
    end
    local want = place(count, latest[p] or 0)
    if tonumber(redis.call('ZSCORE', order, p)) ~= tonumber(want) then
      redis.call('ZADD', order, want, p)
    end
  end
end
if not check then
  redis.call('UNLINK', stage, stageOrder)
end
return out

-- repair.lua (after prelude.lua): set participants' scores to 10 x their counted
-- answers, and their places in the order set to match, in one atomic step.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order,
-- KEYS[6] repair board, KEYS[7] repair order set (deleted: a rebuild that
-- stopped midway leaves them)
-- ARGV[1] the ID of the last log entry the caller read ("0-0" for none), or
-- 'check' to correct nothing, then triples of participant, time in ms their
-- place holds in that read of the log (of their latest answer, or without
-- one of their latest join; 0 for none), and '1' when that read holds their
-- join entry, else '0'.
-- Each participant's answers are recounted here (SISMEMBER of 1..jumlah_soal),
-- and log entries after ARGV[1] update the times and the joins, so answers
-- and joins since the caller's read are not undone. A participant without a
-- counted answer stays on the board with 0 points when they joined, and is
-- removed otherwise.
-- Reply: a flat list of participant, score before ('' when none), score
-- after, for every participant whose board entry is not what their answers
-- and joins make it (a member with 0 points and no join entry excepted: it
-- is removed unreported), all of one moment (and changed unless 'check').
-- Refusals (nothing written): KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_CORRUPT.
local meta, board, answers, log, order, stage, stageOrder = unpack(KEYS)
local g = gate()
local _, n, err = g.intact({{'ZADD', board, '0', 'x'}, {'ZREM', board, 'x'}, {'ZADD', order, '0', 'x'}, {'ZREM', order, 'x'},
  {'UNLINK', stage}, {'UNLINK', stageOrder}}, meta, board, answers, log, order)
if err then
  return err
end

local check = ARGV[1] == 'check'
local latest, joined, joinedAt = {}, {}, {}
for i = 2, #ARGV, 3 do
  latest[ARGV[i]] = tonumber(ARGV[i + 1])
  joined[ARGV[i]] = ARGV[i + 2] == '1'
end
for _, entry in ipairs(check and {} or redis.call('XRANGE', log, ARGV[1], '+')) do
  if entry[1] ~= ARGV[1] then
    -- Only an entry of a counted answer places its participant, and a join
    -- entry one without a counted answer.
    local p, q = answerOf(entry, n)
    if p and redis.call('SISMEMBER', answers, q .. ':' .. p) == 1 then
      latest[p] = timeOf(entry[1])
    elseif not p then
      p = joinOf(entry)
      if p then
        joined[p], joinedAt[p] = true, timeOf(entry[1])
      end
    end
  end
end

local out = {}
for i = 2, #ARGV, 3 do
  local p = ARGV[i]
  local count = 0
  for q = 1, storedName(p) and n or 0 do
    if redis.call('SISMEMBER', answers, q .. ':' .. p) == 1 then
      count = count + 1
    end
  end
  local was, now = redis.call('ZSCORE', board, p), count * 10
  local stays = count > 0 or joined[p]
  if (was or stays) and tonumber(was) ~= now then
    table.insert(out, p)
    table.insert(out, was or '')
    table.insert(out, tostring(now))
  end
  if check then
  elseif not stays then
    redis.call('ZREM', order, p)
    redis.call('ZREM', board, p)
  else
    if tonumber(was) ~= now then
      redis.call('ZADD', board, now, p)
    end
    local want = place(count, count == 0 and joinedAt[p] or latest[p] or 0)
    if tonumber(redis.call('ZSCORE', order, p)) ~= tonumber(want) then
      redis.call('ZADD', order, want, p)
    end
  end
end
if not check then
  redis.call('UNLINK', stage, stageOrder)
end
return out

-- record_answer.lua (after gate.lua): a correct answer to one question,
-- counted at most once per participant.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order
-- ARGV[1] participant (validated in Go), ARGV[2] question (decimal, >= 1)
-- Reply: {score, duplicate}: the participant's score after the call, and 1
-- when the pair was already answered (nothing written), else 0. A pair counted
-- before the quiz finished still answers {score, 1} after it.
-- Refusals (nothing written): KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_FINISHED,
-- KUIS_QUESTION (question above jumlah_soal), KUIS_CORRUPT.
--
-- A counted answer writes four keys: +10 on the board, the pair in the
-- answers set, an entry in the log (XADD *, so its ID holds the server's
-- time in milliseconds) and the participant's place in the order set:
-- count * 2^42 + (2^42 - 1 - ms), so that ZRANGE ... REV puts more points
-- first and, among equal points, the earlier time first.
local meta, board, answers, log, order = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local participant, question = ARGV[1], ARGV[2]
local pair = question .. ':' .. participant

-- count writes a new answer, the log first: XADD on a log of the wrong type
-- writes nothing, and count returns nil then. The order set's type and the
-- ACL for the other writes were checked by the caller.
local function count(cur)
  local score = (tonumber(cur) or 0) + 10
  local id = redis.pcall('XADD', log, '*', 'peserta', participant, 'soal', question, 'skor', score)
  if type(id) ~= 'string' then
    return nil
  end
  local ms = tonumber(string.match(id, '^%d+'))
  redis.call('ZINCRBY', board, 10, participant)
  redis.call('SADD', answers, pair)
  local unit = 4398046511104 -- 2^42 ms: until the year 2109
  redis.call('ZADD', order, math.min(score / 10, 2047) * unit + (unit - 1 - ms), participant)
  return {tostring(score), 0}
end

-- writable reports whether the ACL user may run every write of count.
local function writable(acl)
  return not acl or (acl('ZINCRBY', board, '10', participant) and acl('SADD', answers, pair)
    and acl('ZADD', order, '0', participant))
end

-- The common case, with no helper built: every check reads, and the writes
-- come after the last check. A repeat writes nothing, but answers only a
-- caller who could have written it.
local f = redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
local n = f[1] == 'berjalan' and questions(f[2])
local acl = redis.acl_check_cmd
if n and tonumber(question) <= n then
  local seen = redis.pcall('SISMEMBER', answers, pair)
  local cur = redis.pcall('ZSCORE', board, participant)
  local placed = redis.pcall('ZSCORE', order, participant)
  if sound(cur) and type(placed) ~= 'table' and writable(acl) and (not acl or acl('XADD', log, '*', 'a', 'b')) then
    if seen == 0 then
      local reply = count(cur)
      if reply then
        return reply
      end
    end
    if seen == 1 and cur then
      return {cur, 1}
    end
  end
end

-- Otherwise the long way, with every check worded: a repeat answers its
-- score, anything else is refused with nothing written.
local g = gate()
local err = g.permitted({'XADD', log, '*', 'a', 'b'}, {'ZINCRBY', board, '10', participant},
  {'SADD', answers, pair}, {'ZADD', order, '0', participant})
if err then
  return err
end
local s, n, err = g.status(meta)
if err then
  return err
end
if s == 'selesai' then
  -- A finished quiz takes no answer, but a retry of one it counted (its
  -- reply lost before the teacher finished) is told so, not refused.
  if tonumber(question) <= n and redis.pcall('SISMEMBER', answers, pair) == 1 then
    local cur, err = g.score(board, participant)
    if err then
      return err
    end
    if cur then
      return {cur, 1}
    end
  end
  return g.refuse('KUIS_FINISHED')
end
if tonumber(question) > n then
  return g.refuse('KUIS_QUESTION', 'question ' .. question .. ' of ' .. n)
end
local seen, err = g.call(answers .. ': not a set', 'SISMEMBER', answers, pair)
if err then
  return err
end
local cur, err = g.score(board, participant)
if err then
  return err
end
if seen == 1 then
  if not cur then
    return g.refuse('KUIS_CORRUPT', board .. ': no score for answered pair ' .. pair)
  end
  return {cur, 1}
end
local _, err = g.call(log .. ': not a stream', 'XLEN', log)
if err then
  return err
end
local _, err = g.call(order .. ': not a sorted set', 'ZCARD', order)
if err then
  return err
end
return count(cur) or g.refuse('KUIS_CORRUPT', log .. ': not a stream')

-- record_answer.lua (after gate.lua): correct answers to one quiz, each
-- counted at most once per (question, participant), one after the other in
-- the order given, in one atomic step.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order
-- ARGV: one or more pairs of participant (validated in Go) and question
-- (decimal, >= 1): ARGV[2i-1], ARGV[2i] is answer i. The Go side sends at
-- most MaxAnswers (script.go) pairs, so that no run holds the server long.
-- Reply: one element per answer, in order: {score, duplicate}, the
-- participant's score after that answer and 1 when the pair was already
-- answered (nothing written), else 0; or that answer's refusal as an error
-- reply (nothing written for it): KUIS_FORBIDDEN, KUIS_NOTFOUND,
-- KUIS_FINISHED, KUIS_QUESTION (question above jumlah_soal), KUIS_CORRUPT.
-- A refusal never affects the other answers. A pair counted before the quiz
-- finished still answers {score, 1} after it.
--
-- A counted answer writes four keys: the pair in the answers set, an entry
-- in the log (XADD *, so its ID holds the server's time in milliseconds),
-- +10 on the board and the participant's place in the order set:
-- count * 2^42 + (2^42 - 1 - ms), so that ZRANGE ... REV puts more points
-- first and, among equal points, the earlier time first.
local meta, board, answers, log, order = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local unit = 4398046511104 -- 2^42 ms: until the year 2109

-- place writes the log entry, the score and the place of a new answer (the
-- caller writes the pair). XADD goes first: when it fails (a log of the
-- wrong type, or one whose last ID is the greatest possible) nothing is
-- written, and place returns nil and XADD's error.
local function place(participant, question, cur)
  local score = (tonumber(cur) or 0) + 10
  local id = redis.pcall('XADD', log, '*', 'peserta', participant, 'soal', question, 'skor', score)
  if type(id) ~= 'string' then
    return nil, id.err
  end
  local ms = tonumber(string.match(id, '^%d+'))
  redis.call('ZINCRBY', board, 10, participant)
  redis.call('ZADD', order, math.min(score / 10, 2047) * unit + (unit - 1 - ms), participant)
  return {tostring(score), 0}
end

-- What holds for the whole run is checked once: the quiz runs, the ACL user
-- may run every write (and SREM, to take a pair back), and the log and order
-- set are of their types, so that no write after SADD fails. Otherwise every
-- answer goes the long way.
local f = redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
local n = f[1] == 'berjalan' and questions(f[2])
if n then
  local acl = redis.acl_check_cmd
  if acl and not (acl('SADD', answers, 'a') and acl('SREM', answers, 'a') and acl('XADD', log, '*', 'a', 'b')
      and acl('ZINCRBY', board, '10', 'a') and acl('ZADD', order, '0', 'a')) then
    n = nil
  end
end
if n then
  local l, o = redis.pcall('XLEN', log), redis.pcall('ZCARD', order)
  if type(l) ~= 'number' or type(o) ~= 'number' then
    n = nil
  end
end

-- quick is one answer's common case, with no helper built: it returns the
-- reply, or nil (having written nothing) to have the answer taken the long
-- way. SADD is the exactly-once test itself: it adds the pair, or says it
-- was there, after the score has been found sound.
local function quick(participant, question)
  if not n or tonumber(question) > n then
    return nil
  end
  local cur = redis.pcall('ZSCORE', board, participant)
  if not sound(cur) then
    return nil
  end
  local pair = question .. ':' .. participant
  local added = redis.pcall('SADD', answers, pair)
  if added == 0 and cur then
    return {cur, 1}
  end
  if added ~= 1 then
    return nil
  end
  local reply = place(participant, question, cur)
  if not reply then
    -- XADD * on a stream fails only once its last ID is the greatest
    -- possible: the pair goes, and the long way words the refusal.
    redis.call('SREM', answers, pair)
  end
  return reply
end

-- slow is one answer the long way, with every check worded: a repeat
-- answers its score, anything else is refused with nothing written.
local g
local function slow(participant, question)
  g = g or gate()
  local pair = question .. ':' .. participant
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
    return g.refuse('KUIS_QUESTION', 'question ' .. question .. ' of ' .. whole(n))
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
  local reply, xerr = place(participant, question, cur)
  if not reply then
    return g.refuse('KUIS_CORRUPT', log .. ': takes no entry: ' .. tostring(xerr))
  end
  redis.call('SADD', answers, pair)
  return reply
end

local out = {}
for i = 1, #ARGV - 1, 2 do
  local participant, question = ARGV[i], ARGV[i + 1]
  out[#out + 1] = quick(participant, question) or slow(participant, question)
end
return out

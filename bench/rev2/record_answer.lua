-- record_answer.lua (after gate.lua): a correct answer to one question,
-- counted at most once per participant.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers
-- ARGV[1] participant (validated in Go), ARGV[2] question (decimal, >= 1)
-- Reply: {score, duplicate}: the participant's score after the call, and 1
-- when the pair was already answered (nothing written), else 0. A pair counted
-- before the quiz finished still answers {score, 1} after it.
-- Refusals (nothing written): KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_FINISHED,
-- KUIS_QUESTION (question above jumlah_soal), KUIS_CORRUPT.
local meta, board, answers, participant, question = KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2]
local pair = question .. ':' .. participant

-- The common case, with no helper built: every check reads, and the writes
-- come after the last check. ZINCRBY goes first: an ACL refusal of it writes
-- nothing, and SADD is checked against the ACL before it. A repeat writes
-- nothing, but answers only a caller who could have written it.
local f = redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
local n = f[1] == 'berjalan' and questions(f[2])
local acl = redis.acl_check_cmd
if n and tonumber(question) <= n then
  local seen = redis.pcall('SISMEMBER', answers, pair)
  local cur = redis.pcall('ZSCORE', board, participant)
  if sound(cur) and (not acl or acl('SADD', answers, pair)) then
    if seen == 0 then
      local score = redis.call('ZINCRBY', board, 10, participant)
      redis.call('SADD', answers, pair)
      return {score, 0}
    end
    if seen == 1 and cur and (not acl or acl('ZINCRBY', board, '10', participant)) then
      return {cur, 1}
    end
  end
end

-- Otherwise the long way, with every check worded: a repeat answers its
-- score, anything else is refused with nothing written.
local g = gate()
local err = g.permitted({'ZINCRBY', board, '10', participant}, {'SADD', answers, pair})
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
local score = redis.call('ZINCRBY', board, 10, participant)
redis.call('SADD', answers, pair)
return {score, 0}

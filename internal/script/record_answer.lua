-- record_answer.lua (after gate.lua): a correct answer to one question,
-- counted at most once per participant.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers
-- ARGV[1] participant (validated in Go), ARGV[2] question (decimal, >= 1)
-- Reply: {score, duplicate}: the participant's score after the call, and 1
-- when the pair was already answered (nothing written), else 0.
-- Refusals (nothing written): KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_FINISHED,
-- KUIS_QUESTION (question above jumlah_soal), KUIS_CORRUPT.
local err = permitted({'ZINCRBY', KEYS[2], '10', ARGV[1]}, {'SADD', KEYS[3], ARGV[2]})
if err then
  return err
end
local questions, err = running(KEYS[1])
if err then
  return err
end
if tonumber(ARGV[2]) > questions then
  return refuse('KUIS_QUESTION', 'question ' .. ARGV[2] .. ' is above jumlah_soal ' .. questions)
end
local pair = ARGV[2] .. ':' .. ARGV[1]
local seen, err = call(KEYS[3] .. ' is not a set', 'SISMEMBER', KEYS[3], pair)
if err then
  return err
end
if seen == 1 then
  local score, err = call(KEYS[2] .. ' is not a sorted set', 'ZSCORE', KEYS[2], ARGV[1])
  if err then
    return err
  end
  if not score then
    return refuse('KUIS_CORRUPT', KEYS[2] .. ' has no score for answered pair ' .. pair)
  end
  return {score, 1}
end
-- ZINCRBY first: if the board is of the wrong type nothing has been written yet.
local score, err = zincrby(KEYS[2], ARGV[1])
if err then
  return err
end
redis.call('SADD', KEYS[3], pair)
return {score, 0}

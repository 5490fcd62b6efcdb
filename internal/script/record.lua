-- record.lua (after gate.lua): one correct answer, +10 points, while the quiz runs.
-- KEYS[1] meta, KEYS[2] board
-- ARGV[1] participant (validated in Go)
-- Reply: the new score (bulk string). Refusals (nothing written):
-- KUIS_NOTFOUND, KUIS_FINISHED, KUIS_CORRUPT; an ACL refusal of ZINCRBY comes
-- back as the server words it, before anything is written.
local meta, board, participant = KEYS[1], KEYS[2], ARGV[1]

-- The common case: HMGET, ZSCORE, ZINCRBY, and no helper built.
local f = redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
if f[1] == 'berjalan' and questions(f[2]) and sound(redis.pcall('ZSCORE', board, participant)) then
  return redis.call('ZINCRBY', board, 10, participant)
end

-- Otherwise say why: each check below refuses what the line above let by.
local g = gate()
local _, err = g.running(meta)
if err then
  return err
end
local _, err = g.score(board, participant)
if err then
  return err
end
return redis.call('ZINCRBY', board, 10, participant)

-- record.lua (after gate.lua): one correct answer, +10 points, while the quiz runs.
-- KEYS[1] meta, KEYS[2] board
-- ARGV[1] participant (validated in Go)
-- Reply: the new score (bulk string). Refusals (nothing written):
-- KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_FINISHED, KUIS_CORRUPT.
local err = permitted({'ZINCRBY', KEYS[2], '10', ARGV[1]})
if err then
  return err
end
local _, err = running(KEYS[1])
if err then
  return err
end
local score, err = zincrby(KEYS[2], ARGV[1])
if err then
  return err
end
return score

-- standing.lua (read-only, after prelude.lua): one participant's place, of one moment.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] order
-- ARGV[1] participant (validated in Go), ARGV[2] "time" for time order, else empty
-- Reply: {score, position (ZREVRANK, 0-based), higher (the number of members
-- with more points), 1 when placed by the order set else 0}, where score is
-- the board's ZSCORE; or nil when the participant has no score. Refusals:
-- KUIS_NOTFOUND without meta, KUIS_CORRUPT for a key of the wrong type or a
-- place in the order set that does not agree with the board score.
local g = gate()
local err = g.found(KEYS[1])
if err then
  return err
end
local ranked, err = g.ranking(KEYS[2], KEYS[3], ARGV[2] == 'time')
if err then
  return err
end
local score, err = g.call('not a sorted set', 'ZSCORE', KEYS[2], ARGV[1])
if err then
  return err
end
if not score then
  return false
end
local bytime = 0
if ranked == KEYS[3] then
  bytime = 1
  local place = redis.call('ZSCORE', KEYS[3], ARGV[1])
  if not place or not agrees(place, score) then
    return g.misplaced(KEYS[3], ARGV[1], place, score)
  end
end
return {score, redis.call('ZREVRANK', ranked, ARGV[1]), redis.call('ZCOUNT', KEYS[2], '(' .. score, '+inf'), bytime}

-- standing.lua (read-only, after prelude.lua): one participant's place, of one moment.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] order
-- ARGV[1] participant (validated in Go), ARGV[2] "time" for time order, else empty
-- Reply: {score, position (ZREVRANK, 0-based), higher (the number of members
-- with more points), 1 when read from the order set else 0}, where score is
-- ZSCORE's string of the set read; or nil when the participant has no score.
-- Refusals: KUIS_NOTFOUND without meta, KUIS_CORRUPT for a key of the wrong type.
local g = gate()
local n, err = g.call(KEYS[1] .. ': not a hash', 'HLEN', KEYS[1])
if err then
  return err
end
if n == 0 then
  return g.refuse('KUIS_NOTFOUND')
end
local ranked, err = g.ranking(KEYS[2], KEYS[3], ARGV[2] == 'time')
if err then
  return err
end
local score, err = g.call(ranked .. ': not a sorted set', 'ZSCORE', ranked, ARGV[1])
if err then
  return err
end
if not score then
  return false
end
local above, bytime = '(' .. score, 0
if ranked == KEYS[3] then
  -- More points: the next multiple of the order set's unit.
  above, bytime = string.format('%.0f', (math.floor(tonumber(score) / unit) + 1) * unit), 1
end
return {score, redis.call('ZREVRANK', ranked, ARGV[1]), redis.call('ZCOUNT', ranked, above, '+inf'), bytime}

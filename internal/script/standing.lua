-- standing.lua (read-only, after gate.lua): one participant's place, of one moment.
-- KEYS[1] meta, KEYS[2] board
-- ARGV[1] participant (validated in Go)
-- Reply: {score (ZSCORE's string), position (ZREVRANK, 0-based), higher (the
-- number of members with a higher score)}, or nil when the participant has no
-- score. Refusals: KUIS_NOTFOUND without meta, KUIS_CORRUPT for a key of the
-- wrong type.
local g = gate()
local n, err = g.call(KEYS[1] .. ': not a hash', 'HLEN', KEYS[1])
if err then
  return err
end
if n == 0 then
  return g.refuse('KUIS_NOTFOUND')
end
local score, err = g.call(KEYS[2] .. ': not a sorted set', 'ZSCORE', KEYS[2], ARGV[1])
if err then
  return err
end
if not score then
  return false
end
return {score, redis.call('ZREVRANK', KEYS[2], ARGV[1]), redis.call('ZCOUNT', KEYS[2], '(' .. score, '+inf')}

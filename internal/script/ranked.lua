-- ranked.lua (read-only, after prelude.lua): positions of the board in time
-- order, each with its board score, of one moment.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] order
-- ARGV[1] start, ARGV[2] stop (positions of ZRANGE ... REV, -1 the end)
-- Reply: {member, score, ...}: the order set's positions start..stop, each
-- member with its score on the board, when the order set holds as many
-- members as the board; else the same positions of the board itself, in name
-- order. Refusals: KUIS_NOTFOUND without meta, KUIS_CORRUPT for a key of
-- the wrong type or a member whose place in the order set does not agree
-- with its board score.
local g = gate()
local err = g.found(KEYS[1])
if err then
  return err
end
local ranked, err = g.ranking(KEYS[2], KEYS[3], true)
if err then
  return err
end
local out = redis.call('ZRANGE', ranked, ARGV[1], ARGV[2], 'REV', 'WITHSCORES')
if ranked == KEYS[2] then
  return out
end
-- The board scores, ZMSCORE of at most 1,000 members at a time.
for lo = 1, #out, 2000 do
  local who = {}
  for i = lo, math.min(lo + 1998, #out - 1), 2 do
    who[#who + 1] = out[i]
  end
  local scores = redis.call('ZMSCORE', KEYS[2], unpack(who))
  for j, score in ipairs(scores) do
    local i = lo + 2 * (j - 1)
    if not agrees(out[i + 1], score) then
      return g.misplaced(KEYS[3], out[i], out[i + 1], score)
    end
    out[i + 1] = score
  end
end
return out

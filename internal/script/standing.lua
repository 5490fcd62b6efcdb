-- standing.lua (read-only, after prelude.lua): one participant's place on a
-- sorted board, of one moment: a quiz's board, or a course's (no meta, no
-- order set).
-- KEYS[1] board; for a quiz, KEYS[2] meta and KEYS[3] order
-- ARGV[1] participant (validated in Go), ARGV[2] "time" for a quiz's time
-- order, else empty
-- Reply: {score, position (ZREVRANK, 0-based, in the set that orders the
-- board), higher (the number of members with more points)}, where score is
-- the board's ZSCORE; or nil when the participant has no score. Refusals:
-- KUIS_NOTFOUND for a quiz without meta, KUIS_CORRUPT for a key of the wrong
-- type or a place in the order set that does not agree with the board score.
local g = gate()
local board, ranked = KEYS[1], KEYS[1]
if KEYS[2] then
  local err = g.found(KEYS[2])
  if err then
    return err
  end
  ranked, err = g.ranking(board, KEYS[3], ARGV[2] == 'time')
  if err then
    return err
  end
end
local score, err = g.call('not a sorted set', 'ZSCORE', board, ARGV[1])
if err then
  return err
end
if not score then
  return false
end
if ranked ~= board then
  local place = redis.call('ZSCORE', ranked, ARGV[1])
  if not place or not agrees(place, score) then
    return g.misplaced(ranked, ARGV[1], place, score)
  end
end
return {score, redis.call('ZREVRANK', ranked, ARGV[1]), redis.call('ZCOUNT', board, '(' .. score, '+inf')}

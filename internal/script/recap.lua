-- recap.lua (read-only, after gate.lua): one consistent snapshot of a quiz for the recap.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers
-- ARGV[1] "purge" when the recap is the first step of PurgeQuiz, else empty
-- Reply: {meta as HGETALL's flat field/value list, board as ZRANGE 0 -1 REV
-- WITHSCORES's flat member/score list}. An empty meta list means the quiz does
-- not exist. Refusals: KUIS_FORBIDDEN for a purge the ACL user may not
-- finish (checked first, so that PurgeQuiz never hands an archive a recap it
-- cannot delete), KUIS_CORRUPT for a key of the wrong type.
local g = gate()
if ARGV[1] == 'purge' then
  local err = g.permitted({'UNLINK', KEYS[1]}, {'UNLINK', KEYS[2]}, {'UNLINK', KEYS[3]})
  if err then
    return err
  end
end
local meta, err = g.call(KEYS[1] .. ': not a hash', 'HGETALL', KEYS[1])
if err then
  return err
end
local board, err = g.call(KEYS[2] .. ': not a sorted set', 'ZRANGE', KEYS[2], 0, -1, 'REV', 'WITHSCORES')
if err then
  return err
end
return {meta, board}

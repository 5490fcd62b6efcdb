-- recap.lua (read-only, after prelude.lua): one consistent snapshot of a quiz for the recap.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order
-- ARGV[1] "purge" when the recap is the first step of PurgeQuiz, else empty;
-- ARGV[2] "time" to read the board in time order (from the order set), else empty;
-- ARGV[3] the most board members, answers and log entries, together, to read here
-- Reply: {meta as HGETALL's flat field/value list, the board as ZRANGE 0 -1
-- REV WITHSCORES's flat member/score list, the answers set's members, the
-- log as XRANGE - + (each entry {id, {field, value, ...}}), the order set
-- likewise when it orders the board (in time order, and it holds as many
-- members as the board), else an empty list}. An empty meta list means the
-- quiz does not exist. A quiz with more than ARGV[3] board members, answers
-- and log entries together is not read: the reply is {meta} alone, and the
-- caller reads it in parts.
-- Refusals: KUIS_FORBIDDEN for a purge
-- the ACL user may not finish (checked first, so that PurgeQuiz never hands
-- an archive a recap it cannot delete), KUIS_CORRUPT for a key of the wrong type.
local g = gate()
if ARGV[1] == 'purge' then
  local err = g.deletable(KEYS)
  if err then
    return err
  end
end
local meta, err = g.call('not a hash', 'HGETALL', KEYS[1])
if err then
  return err
end
local size, err = g.sizes(KEYS[2], KEYS[3], KEYS[4])
if err then
  return err
end
if size > tonumber(ARGV[3]) then
  return {meta}
end
local ranked, err = g.ranking(KEYS[2], KEYS[5], ARGV[2] == 'time')
if err then
  return err
end
local board, err = g.call('not a sorted set', 'ZRANGE', KEYS[2], 0, -1, 'REV', 'WITHSCORES')
if err then
  return err
end
local answers, err = g.call('not a set', 'SMEMBERS', KEYS[3])
if err then
  return err
end
local log, err = g.call('not a stream', 'XRANGE', KEYS[4], '-', '+')
if err then
  return err
end
local places = {}
if ranked == KEYS[5] then
  places = redis.call('ZRANGE', KEYS[5], 0, -1, 'REV', 'WITHSCORES')
end
return {meta, board, answers, log, places}

-- recap.lua (read-only): one consistent snapshot of a quiz for the recap.
-- KEYS[1] meta, KEYS[2] board
-- Reply: {meta as HGETALL's flat field/value list, board as ZREVRANGE 0 -1
-- WITHSCORES's flat member/score list}. An empty meta list means the quiz does
-- not exist. Refusal: KUIS_CORRUPT for a key of the wrong type.
local meta = redis.pcall('HGETALL', KEYS[1])
if meta.err then
  return redis.error_reply('KUIS_CORRUPT ' .. KEYS[1] .. ' is not a hash')
end
local board = redis.pcall('ZREVRANGE', KEYS[2], 0, -1, 'WITHSCORES')
if board.err then
  return redis.error_reply('KUIS_CORRUPT ' .. KEYS[2] .. ' is not a sorted set')
end
return {meta, board}

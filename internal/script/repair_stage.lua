-- repair_stage.lua (after prelude.lua): write one chunk of a rebuilt board and
-- order set into the repair keys, which no reader reads, for Repair's rebuild
-- of a board too large to correct in one step.
-- KEYS[1] repair board, KEYS[2] repair order set
-- ARGV[1] the rebuild's token (a member no participant can have: it starts
-- with a NUL byte), ARGV[2] 'begin' (start afresh: drop any leftover, keep
-- the token), 'add' (the rebuild must still own the keys) or 'drop' (delete
-- the keys if the rebuild still owns them), then for begin and add triples
-- of participant, score, place in the order set.
-- Reply: the number of participants written. Refusals: KUIS_BUSY (another
-- rebuild of the quiz took the repair keys over: nothing written),
-- KUIS_FORBIDDEN.
local stage, stageOrder = KEYS[1], KEYS[2]
local token, mode = ARGV[1], ARGV[2]
local g = gate()
local err = g.permitted({'UNLINK', stage}, {'UNLINK', stageOrder}, {'ZADD', stage, '0', 'x'}, {'ZADD', stageOrder, '0', 'x'})
if err then
  return err
end
if mode == 'begin' then
  -- UNLINK frees a big leftover in the background.
  redis.call('UNLINK', stage, stageOrder)
  redis.call('ZADD', stage, 0, token)
elseif redis.call('ZSCORE', stage, token) == false then
  return g.refuse('KUIS_BUSY')
elseif mode == 'drop' then
  redis.call('UNLINK', stage, stageOrder)
  return 0
end
local scores, places = {}, {}
for i = 3, #ARGV, 3 do
  table.insert(scores, ARGV[i + 1])
  table.insert(scores, ARGV[i])
  table.insert(places, ARGV[i + 2])
  table.insert(places, ARGV[i])
end
if #scores > 0 then
  redis.call('ZADD', stage, unpack(scores))
  redis.call('ZADD', stageOrder, unpack(places))
end
return #scores / 2

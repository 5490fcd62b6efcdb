-- course_check.lua (after prelude.lua), read-only: whether the ACL user may
-- make the writes of a course operation, asked before the operation reads
-- or writes anything, so that one refused writes nothing and calls no
-- archive, and, run as EVAL_RO, is followed by no WAIT.
-- KEYS[1] course board, KEYS[2] quiz index, KEYS[3] an instance's ledger
-- ARGV[1] the operation: 'fold', 'unfold', 'repair' or 'purge'
-- Reply: 1. Refusal: KUIS_FORBIDDEN naming the command refused.
local g = gate()
local board, index, ledger, op = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local err
if op == 'fold' then
  err = g.permitted({'HSET', index, 'q@0-0', 'm'}, {'HSET', ledger, 'p', '10'}, {'ZADD', board, '10', 'p'})
elseif op == 'unfold' then
  err = g.permitted({'HSET', index, 'q@0-0', 'm'}, {'HDEL', index, 'q@0-0'}, {'HDEL', ledger, 'p'},
    {'ZADD', board, '10', 'p'}, {'ZREM', board, 'p'})
elseif op == 'repair' then
  err = g.permitted({'ZADD', board, '10', 'p'}, {'ZREM', board, 'p'})
else
  err = g.deletable(KEYS)
end
return err or 1

-- course.lua (after prelude.lua): the writes of a course board and its ledger.
-- KEYS[1] course board, KEYS[2] ledger
-- ARGV[1] the mode:
--   'check', op: refuses with KUIS_FORBIDDEN unless the ACL user may make
--     op's writes ('fold', 'unfold', 'repair' or 'purge'), so that an
--     operation refused writes nothing and calls no archive. Reply: 1.
--   'fold', quiz, marker, final, then participant, points pairs: adds the
--     pairs the ledger lacks, each to the ledger and the board at once, and
--     with final '1' then writes the quiz's marker (10 x jumlah_soal): the
--     quiz is folded once all its parts are in. A pair the ledger holds
--     with the same points adds nothing: a retried part adds only what is
--     missing. Reply: {found, participants added, points added}, found 1
--     when the quiz's marker was there already (then nothing is written).
--   'unfold', quiz, first, then participants: takes each participant's
--     points from this quiz out of the ledger and the board, removing from
--     the board whom it leaves without points; with first '1' it first
--     deletes the quiz's marker, so that a quiz part-unfolded reads as one
--     part-folded. Reply: {participant, was, now, ...} for each participant
--     the ledger held, was and now the board's total before and after.
-- Refusals, before anything is written: KUIS_FORBIDDEN; KUIS_CONFLICT when
-- the ledger holds a pair of the quiz with other points, or its marker with
-- another value or before every pair is in; KUIS_CORRUPT for a key of the
-- wrong type, a ledger value out of its form, a board total that is not
-- sound or that the points would raise past maxScore.
local g = gate()
local board, ledger, mode = KEYS[1], KEYS[2], ARGV[1]

if mode == 'check' then
  local err
  local op = ARGV[2]
  if op == 'fold' then
    err = g.permitted({'HSETNX', ledger, 'q:p', '10'}, {'ZADD', board, '10', 'p'})
  elseif op == 'unfold' then
    err = g.permitted({'HDEL', ledger, 'q:p'}, {'ZADD', board, '10', 'p'}, {'ZREM', board, 'p'})
  elseif op == 'repair' then
    err = g.permitted({'ZADD', board, '10', 'p'}, {'ZREM', board, 'p'})
  else
    err = g.deletable(KEYS)
  end
  return err or 1
end

local _, err = g.call('not a sorted set', 'ZCARD', board)
if err then
  return err
end
local _, err = g.call('not a hash', 'HLEN', ledger)
if err then
  return err
end
local quiz = ARGV[2]
local marker = ledgerField(quiz, '')

-- The board's totals change by one ZADD of the new totals, read with one
-- ZMSCORE in this same atomic script: two calls a part, not two a participant.
if mode == 'fold' then
  local err = g.permitted({'HSETNX', ledger, marker, ARGV[3]}, {'ZADD', board, '10', 'p'})
  if err then
    return err
  end
  local names, fields = {}, {}
  for i = 5, #ARGV, 2 do
    names[#names + 1] = ARGV[i]
    fields[#fields + 1] = ledgerField(quiz, ARGV[i])
  end
  local held = {}
  if #fields > 0 then
    held = redis.call('HMGET', ledger, unpack(fields))
  end
  local found = redis.call('HGET', ledger, marker)
  local todo, who = {}, {}
  for j, name in ipairs(names) do
    local want = ARGV[4 + 2 * j]
    if held[j] then
      if held[j] ~= want then
        return g.refuse('KUIS_CONFLICT', 'participant ' .. string.format('%q', string.sub(name, 1, 64)) ..
          ' was folded with ' .. string.sub(held[j], 1, 20) .. ' points, and the recap gives ' .. want)
      end
    elseif found then
      return g.refuse('KUIS_CONFLICT', 'the quiz is folded without participant ' .. string.format('%q', string.sub(name, 1, 64)))
    else
      todo[#todo + 1] = j
      who[#who + 1] = name
    end
  end
  if found then
    if found ~= ARGV[3] then
      return g.refuse('KUIS_CONFLICT', 'the quiz was folded as worth ' .. string.sub(found, 1, 20) ..
        ' points, and the recap makes it ' .. ARGV[3])
    end
    return {1, 0, 0}
  end
  if #todo == 0 then
    if ARGV[4] == '1' then
      redis.call('HSETNX', ledger, marker, ARGV[3])
    end
    return {0, 0, 0}
  end
  -- Every new total must stay sound: all are checked before the first write.
  local totals = redis.call('ZMSCORE', board, unpack(who))
  local set, added = {}, 0
  for k, j in ipairs(todo) do
    local points = tonumber(ARGV[4 + 2 * j])
    if not sound(totals[k]) or tonumber(totals[k] or 0) + points > maxScore then
      return g.refuse('KUIS_CORRUPT', board .. ': member ' .. string.format('%q', string.sub(who[k], 1, 64)) ..
        ' has ' .. whole(totals[k] or 0) .. ' points, and ' .. ARGV[4 + 2 * j] .. ' more would not be a sound score')
    end
    set[#set + 1] = string.format(int, tonumber(totals[k] or 0) + points)
    set[#set + 1] = who[k]
    added = added + points
  end
  for _, j in ipairs(todo) do
    redis.call('HSETNX', ledger, fields[j], ARGV[4 + 2 * j])
  end
  redis.call('ZADD', board, unpack(set))
  if ARGV[4] == '1' then
    redis.call('HSETNX', ledger, marker, ARGV[3])
  end
  return {0, #todo, string.format(int, added)}
end

if mode == 'unfold' then
  local err = g.permitted({'HDEL', ledger, marker}, {'ZADD', board, '10', 'p'}, {'ZREM', board, 'p'})
  if err then
    return err
  end
  local names, fields = {}, {}
  for i = 4, #ARGV do
    names[#names + 1] = ARGV[i]
    fields[#fields + 1] = ledgerField(quiz, ARGV[i])
  end
  local held = {}
  if #fields > 0 then
    held = redis.call('HMGET', ledger, unpack(fields))
  end
  local who, gone, values = {}, {}, {}
  for j, v in ipairs(held) do
    if v then
      if not ledgerPoints(v) then
        return g.refuse('KUIS_CORRUPT', ledger .. ': field ' .. string.format('%q', string.sub(fields[j], 1, 130)) ..
          ' holds ' .. string.format('%q', string.sub(v, 1, 20)) .. ', want a positive multiple of 10')
      end
      who[#who + 1] = names[j]
      gone[#gone + 1] = fields[j]
      values[#values + 1] = ledgerPoints(v)
    end
  end
  if ARGV[3] == '1' then
    redis.call('HDEL', ledger, marker)
  end
  if #who == 0 then
    return {}
  end
  local totals = redis.call('ZMSCORE', board, unpack(who))
  local out, set, drop = {}, {}, {}
  for k, name in ipairs(who) do
    local now = tonumber(totals[k] or 0) - values[k]
    if now > 0 then
      set[#set + 1] = string.format(int, now)
      set[#set + 1] = name
    else
      now = 0
      drop[#drop + 1] = name
    end
    out[#out + 1] = name
    out[#out + 1] = whole(totals[k] or 0)
    out[#out + 1] = string.format(int, now)
  end
  redis.call('HDEL', ledger, unpack(gone))
  if #set > 0 then
    redis.call('ZADD', board, unpack(set))
  end
  if #drop > 0 then
    redis.call('ZREM', board, unpack(drop))
  end
  return out
end

return g.refuse('KUIS_CORRUPT', 'course.lua: unknown mode ' .. string.format('%q', string.sub(mode or '', 1, 20)))

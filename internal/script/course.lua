-- course.lua (after prelude.lua): the writes of a course: its board, its
-- quiz index and the ledger of one quiz instance.
-- KEYS[1] course board, KEYS[2] quiz index, KEYS[3] the instance's ledger
-- ARGV[1] the mode, ARGV[2] the instance's index field '<quiz>@<instance>':
--   'fold', field, marker, final, then participant, points pairs: a part of
--     the fold of one recap. It writes the marker (as given, folded_ms 0)
--     when the index has none, adds the pairs the ledger lacks, each to the
--     ledger and to the board at once, and with final '1' marks the
--     instance folded (folded_ms = the server's TIME in ms) once its ledger
--     holds exactly the marker's participants. A pair the ledger holds with
--     the same points adds nothing, so a part retried adds only what is
--     missing. Reply: {state, participants added, points added, wrote},
--     state 1 when the instance was folded already with this digest
--     (nothing written), 2 when this part marked it folded, else 0; wrote 1
--     when the run wrote anything, else 0 (no WAIT follows it).
--   'unfold', field, ledger key prefix, first, then participants: takes
--     each participant's points from this instance out of the ledger and
--     the board. A participant left with 0 points stays on the board while
--     the ledger of another instance (the index's fields, each a key under
--     the prefix, in the course's hash slot) holds them. With first '1' the
--     marker's folded_ms is set to 0 first, so that an unfold cut short reads
--     as a fold in parts; once the ledger is empty, the index field goes.
--     Reply: {wrote, participant, was, now, ...}: wrote '1' when the run
--     wrote anything, else '0' (no WAIT follows it); then for each
--     participant the ledger held, was and now the board's total before and
--     after.
--   'erase', field, ledger key prefix, participant, marker read, marker to
--     write: takes the participant's entry out of the instance's ledger and
--     its points out of their total, and writes the marker the caller made
--     of the ledger without them (participants, points and digest), keeping
--     folded_ms; once the ledger is empty, the index field goes. The index
--     must still hold the marker read (else KUIS_CONFLICT 'recap', nothing
--     written: the caller reads again). They leave the board unless another
--     instance's ledger holds them, whatever their total; with field '' only
--     that is done, for a board member no ledger holds.
--     Reply: {wrote, was, now}, as 'unfold's, was '' when the board did not
--     hold them.
-- Refusals, before anything is written: KUIS_FORBIDDEN; KUIS_CONFLICT
-- '<reason>\31<participant>\31<held>\31<given>' (separated by the unit
-- separator, a control character no stored name holds and, unlike a tab,
-- no server turns into a space) when the index holds a marker
-- of another recap ('questions': another possible; 'recap': its fold is in
-- parts; 'points': a pair held with other points; 'participants': the
-- ledger lacks a participant of the recap, or holds one more) or a pair is
-- held with other points; KUIS_CORRUPT for a key of the wrong type, a
-- marker or ledger value out of its form, a board total that is not sound
-- or that the points would raise past maxScore.
local g = gate()
local board, index, ledger, mode, field = KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2]

for i, what in ipairs({'not a sorted set', 'not a hash', 'not a hash'}) do
  local _, err = g.call(what, i == 1 and 'ZCARD' or 'HLEN', KEYS[i])
  if err then
    return err
  end
end

-- conflict is the refusal of a fold, in the form the Go side decodes.
local function conflict(reason, participant, held, given)
  return g.refuse('KUIS_CONFLICT', reason .. '\31' .. (participant or '') .. '\31' .. (held or '') .. '\31' .. (given or ''))
end

-- heldMarker reads the instance's marker: nil when none, or the error.
local function heldMarker()
  local v = redis.call('HGET', index, field)
  if not v then
    return nil, nil
  end
  local m = markerOf(v)
  if not m then
    return nil, corrupt(index, 'field ' .. quote(field) .. ' holds ' .. quote(v) .. ', not a marker')
  end
  return m, nil
end

-- heldElsewhere returns a function telling whether the ledger of an
-- instance other than field's (the index's fields, each a key under prefix,
-- in the course's hash slot) holds a participant: the index is read once,
-- at the first question.
local function heldElsewhere(prefix)
  local others
  return function(name)
    if not others then
      others = {}
      for _, f in ipairs(redis.call('HKEYS', index)) do
        if f ~= field then
          others[#others + 1] = prefix .. f
        end
      end
    end
    for _, key in ipairs(others) do
      if redis.call('HEXISTS', key, name) == 1 then
        return true
      end
    end
    return false
  end
end

-- The board's totals change by one ZADD of the new totals, read with one
-- ZMSCORE in this same atomic script: two calls a part, not two a participant.
if mode == 'fold' then
  local err = g.permitted({'HSET', index, field, 'm'}, {'HSET', ledger, 'p', '10'}, {'ZADD', board, '10', 'p'})
  if err then
    return err
  end
  local mine = markerOf(ARGV[3])
  local held, err = heldMarker()
  if err then
    return err
  end
  local names, want = {}, {}
  for i = 5, #ARGV, 2 do
    names[#names + 1] = ARGV[i]
    want[#want + 1] = ARGV[i + 1]
  end
  local values = {}
  if #names > 0 then
    values = redis.call('HMGET', ledger, unpack(names))
  end
  if held and held.digest ~= mine.digest then
    if held.possible ~= mine.possible then
      return conflict('questions', '', whole(held.possible), whole(mine.possible))
    elseif held.folded == 0 then
      return conflict('recap')
    end
  end
  if held and held.digest == mine.digest and held.folded > 0 then
    return {1, 0, 0, 0}
  end
  local todo = {}
  for j, name in ipairs(names) do
    if values[j] and values[j] ~= want[j] then
      return conflict('points', name, string.sub(values[j], 1, 20), want[j])
    elseif not values[j] and held and held.digest ~= mine.digest then
      return conflict('participants', name, '', want[j])
    elseif not values[j] then
      todo[#todo + 1] = j
    end
  end
  if held and held.digest ~= mine.digest then
    return conflict('participants') -- every pair held: the ledger holds one more
  end
  -- Every new total must stay sound: all are checked before the first write.
  local who = {}
  for k, j in ipairs(todo) do
    who[k] = names[j]
  end
  local totals = {}
  if #who > 0 then
    totals = redis.call('ZMSCORE', board, unpack(who))
  end
  local set, pairs, added = {}, {}, 0
  for k, j in ipairs(todo) do
    local points = tonumber(want[j])
    if not sound(totals[k]) or tonumber(totals[k] or 0) + points > maxScore then
      return corrupt(board, 'member ' .. quote(who[k]) .. ' has ' .. whole(totals[k] or 0) .. ' points, and ' .. want[j] ..
        ' more would not be a sound score')
    end
    set[#set + 1] = string.format(int, tonumber(totals[k] or 0) + points)
    set[#set + 1] = who[k]
    pairs[#pairs + 1] = who[k]
    pairs[#pairs + 1] = want[j]
    added = added + points
  end
  if not held then
    redis.call('HSET', index, field, ARGV[3])
  end
  if #todo > 0 then
    redis.call('HSET', ledger, unpack(pairs))
    redis.call('ZADD', board, unpack(set))
  end
  local state = 0
  if ARGV[4] == '1' and redis.call('HLEN', ledger) == mine.participants then
    local t = redis.call('TIME')
    mine.folded = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    redis.call('HSET', index, field, markerString(mine))
    state = 2
  end
  local wrote = 0
  if not held or #todo > 0 or state == 2 then
    wrote = 1
  end
  return {state, #todo, string.format(int, added), wrote}
end

if mode == 'unfold' then
  local err = g.permitted({'HSET', index, field, 'm'}, {'HDEL', index, field}, {'HDEL', ledger, 'p'},
    {'ZADD', board, '10', 'p'}, {'ZREM', board, 'p'})
  if err then
    return err
  end
  local raw = redis.call('HGET', index, field)
  local held = markerOf(raw) -- a marker out of its form goes as one in form does
  local prefix, names = ARGV[3], {}
  for i = 5, #ARGV do
    names[#names + 1] = ARGV[i]
  end
  local values = {}
  if #names > 0 then
    values = redis.call('HMGET', ledger, unpack(names))
  end
  local who, points = {}, {}
  for j, v in ipairs(names) do
    if values[j] then
      local p = ledgerPoints(values[j])
      if not p then
        return corrupt(ledger, 'field ' .. quote(v) .. ' holds ' .. quote(values[j]) .. ', want a multiple of 10 of at most ' ..
          whole(maxScore))
      end
      who[#who + 1] = v
      points[#points + 1] = p
    end
  end
  local out = {'0'}
  if ARGV[4] == '1' and held and held.folded > 0 then
    held.folded = 0
    redis.call('HSET', index, field, markerString(held))
    out[1] = '1'
  end
  if #who > 0 then
    local totals = redis.call('ZMSCORE', board, unpack(who))
    local elsewhere = heldElsewhere(prefix)
    local set, drop = {}, {}
    for k, name in ipairs(who) do
      local now = math.max(tonumber(totals[k] or 0) - points[k], 0)
      if now > 0 or elsewhere(name) then
        set[#set + 1] = string.format(int, now)
        set[#set + 1] = name
      else
        drop[#drop + 1] = name
      end
      out[#out + 1] = name
      out[#out + 1] = whole(totals[k] or 0)
      out[#out + 1] = string.format(int, now)
    end
    out[1] = '1'
    redis.call('HDEL', ledger, unpack(who))
    if #set > 0 then
      redis.call('ZADD', board, unpack(set))
    end
    if #drop > 0 then
      redis.call('ZREM', board, unpack(drop))
    end
  end
  if raw and redis.call('HLEN', ledger) == 0 then
    redis.call('HDEL', index, field)
    out[1] = '1'
  end
  return out
end

if mode == 'erase' then
  local err = g.permitted({'HSET', index, field, 'm'}, {'HDEL', index, field}, {'HDEL', ledger, 'p'},
    {'ZADD', board, '10', 'p'}, {'ZREM', board, 'p'})
  if err then
    return err
  end
  local prefix, name, read, write = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
  local points = 0
  local value = field ~= '' and redis.call('HGET', ledger, name)
  if value then
    if redis.call('HGET', index, field) ~= read then
      return conflict('recap')
    end
    points = ledgerPoints(value)
    if not points then
      return corrupt(ledger, 'field ' .. quote(name) .. ' holds ' .. quote(value) .. ', want a multiple of 10 of at most ' ..
        whole(maxScore))
    end
  end
  local total = redis.call('ZSCORE', board, name)
  if not sound(total) then
    return corrupt(board, 'member ' .. quote(name) .. ' has ' .. whole(total) .. ' points, not a sound score')
  end
  local now = math.max(tonumber(total or 0) - points, 0)
  local wrote = '0'
  if value then
    redis.call('HDEL', ledger, name)
    if redis.call('HLEN', ledger) == 0 then
      redis.call('HDEL', index, field)
    else
      redis.call('HSET', index, field, write)
    end
    wrote = '1'
  end
  if total then
    if heldElsewhere(prefix)(name) then
      if now ~= tonumber(total) then
        redis.call('ZADD', board, string.format(int, now), name)
        wrote = '1'
      end
    else
      redis.call('ZREM', board, name)
      now = 0
      wrote = '1'
    end
  end
  return {wrote, total and whole(total) or '', string.format(int, now)}
end

return g.refuse('KUIS_CORRUPT', 'course.lua: unknown mode ' .. quote(mode or ''))

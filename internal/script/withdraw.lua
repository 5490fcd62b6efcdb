-- withdraw.lua (after prelude.lua): the teacher withdraws students from a
-- class.
-- KEYS[1] roster (student ID = name), KEYS[2] names (name = student ID),
-- KEYS[3] look-alikes (a name's confusable key = student ID)
-- ARGV: three values per student, each ID once: its ID, the name the
-- roster held for it when the caller read it ('' for none) and that name's
-- confusable key ('' for none)
-- Reply: how many students the call withdrew, or -1 when the roster holds
-- for an ID another name than the caller read (a student enrolled or
-- withdrawn since): nothing is written, and the caller reads again. The
-- names and look-alikes fields of a student go only where they name the
-- student's ID. Refusals, with nothing written: KUIS_FORBIDDEN,
-- KUIS_CORRUPT (a key of the wrong type).
local g = gate()
local roster, names, lookalikes = KEYS[1], KEYS[2], KEYS[3]
local err = g.permitted({'HDEL', roster, 'i'}, {'HDEL', names, 'n'}, {'HDEL', lookalikes, 'k'})
if err then
  return err
end
-- step bounds the fields of one HMGET or HDEL: unpack has a bound.
local step = 500
-- each calls cmd on key with field ARGV[i + at] of each student i (its
-- ID's index in ARGV) that keep(i) keeps, at most step a call, and returns
-- the replies by i (HMGET's) or their sum (HDEL's), nil; or nil, error.
local function each(cmd, key, at, keep)
  local out, sum, fields, from = {}, 0, {}, {}
  local function flush()
    if #fields == 0 then
      return nil
    end
    local r, e = g.call('not a hash', cmd, key, unpack(fields))
    if e then
      return e
    end
    if type(r) == 'table' then
      for j, v in ipairs(r) do
        out[from[j]] = v
      end
    else
      sum = sum + r
    end
    fields, from = {}, {}
    return nil
  end
  for i = 1, #ARGV, 3 do
    if keep(i) then
      fields[#fields + 1], from[#from + 1] = ARGV[i + at], i
      if #fields == step then
        local e = flush()
        if e then
          return nil, e
        end
      end
    end
  end
  local e = flush()
  if e then
    return nil, e
  end
  if cmd == 'HDEL' then
    return sum, nil
  end
  return out, nil
end
local all = function()
  return true
end
local enrolled = function(i)
  return ARGV[i + 1] ~= ''
end
local byID, byName, byKey, e
byID, e = each('HMGET', roster, 0, all)
if not e then
  byName, e = each('HMGET', names, 1, enrolled)
end
if not e then
  byKey, e = each('HMGET', lookalikes, 2, enrolled)
end
if e then
  return e
end
for i = 1, #ARGV, 3 do
  if (byID[i] or '') ~= ARGV[i + 1] then
    return -1
  end
end
local n = each('HDEL', roster, 0, enrolled)
each('HDEL', names, 1, function(i)
  return enrolled(i) and byName[i] == ARGV[i]
end)
each('HDEL', lookalikes, 2, function(i)
  return enrolled(i) and byKey[i] == ARGV[i]
end)
return n

-- enroll.lua (after prelude.lua): the teacher enrolls students in a class.
-- KEYS[1] roster (student ID = name), KEYS[2] names (name = student ID),
-- KEYS[3] look-alikes (a name's confusable key = student ID)
-- ARGV: three values per student: its ID, its name (clean) and the name's
-- confusable key, each checked in Go
-- Reply: how many students the call enrolled (0: each was enrolled already
-- under the same name, and nothing is written). Each student is checked in
-- order, against the roster and the students before it in the call, before
-- anything is written. Refusals, with nothing written: KUIS_FORBIDDEN,
-- KUIS_CORRUPT (a key of the wrong type), and, their fields separated by
-- the unit separator (\31):
--   KUIS_CONFLICT <id> <held name> <given name>: the ID is enrolled under
--     another name, or given twice with two names;
--   KUIS_NAMETAKEN <id> <name> <holder's id> <holder's name> <how>: the name
--     is another ID's (how 'name'), or has the confusable key of another
--     ID's name (how 'lookalike').
local g = gate()
local roster, names, lookalikes = KEYS[1], KEYS[2], KEYS[3]
local err = g.permitted({'HSET', roster, 'i', 'n'}, {'HSET', names, 'n', 'i'}, {'HSET', lookalikes, 'k', 'i'})
if err then
  return err
end
local sep = '\31'
-- step bounds the fields of one HMGET or HSET: unpack has a bound.
local step = 500
-- stored reads, for each student i (its ID's index in ARGV), field
-- ARGV[i + at] of key, in HMGETs of at most step fields: a table by i of
-- the values held (false for none), or nil, error.
local function stored(key, at)
  local out = {}
  for first = 1, #ARGV, 3 * step do
    local fields = {}
    for i = first, math.min(#ARGV, first + 3 * step - 1), 3 do
      fields[#fields + 1] = ARGV[i + at]
    end
    local r, e = g.call('not a hash', 'HMGET', key, unpack(fields))
    if e then
      return nil, e
    end
    for j, v in ipairs(r) do
      out[first + 3 * (j - 1)] = v
    end
  end
  return out, nil
end
local byID, byName, byKey, e
byID, e = stored(roster, 0)
if not e then
  byName, e = stored(names, 1)
end
if not e then
  byKey, e = stored(lookalikes, 2)
end
if e then
  return e
end
-- pending holds what the call writes, read before what the keys hold.
local pending = {id = {}, name = {}, key = {}}
local new = {}
for i = 1, #ARGV, 3 do
  local id, name, key = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local was = pending.id[id] or byID[i]
  if was then
    if was ~= name then
      return g.refuse('KUIS_CONFLICT', id .. sep .. was .. sep .. name)
    end
  else
    local owner, how = pending.name[name] or byName[i], 'name'
    if not owner or owner == id then
      owner, how = pending.key[key] or byKey[i], 'lookalike'
    end
    if owner and owner ~= id then
      local theirs = pending.id[owner] or redis.call('HGET', roster, owner)
      return g.refuse('KUIS_NAMETAKEN', id .. sep .. name .. sep .. owner .. sep .. (theirs or '') .. sep .. how)
    end
    pending.id[id], pending.name[name], pending.key[key] = name, id, id
    new[#new + 1] = i
  end
end
-- write sets, for each new student, field ARGV[i + f] = ARGV[i + v] of
-- key, in HSETs of at most step fields.
local function write(key, f, v)
  local args = {}
  for _, i in ipairs(new) do
    args[#args + 1], args[#args + 2] = ARGV[i + f], ARGV[i + v]
    if #args == 2 * step then
      redis.call('HSET', key, unpack(args))
      args = {}
    end
  end
  if #args > 0 then
    redis.call('HSET', key, unpack(args))
  end
end
write(roster, 0, 1)
write(names, 1, 0)
write(lookalikes, 2, 0)
return #new

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
for i = 1, #ARGV, 3 do
  local was, e = g.call('not a hash', 'HGET', roster, ARGV[i])
  if e then
    return e
  end
  if (was or '') ~= ARGV[i + 1] then
    return -1
  end
end
for _, key in ipairs({names, lookalikes}) do
  local _, e = g.call('not a hash', 'HLEN', key)
  if e then
    return e
  end
end
local n = 0
for i = 1, #ARGV, 3 do
  local id, name, key = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if name ~= '' then
    n = n + redis.call('HDEL', roster, id)
    if redis.call('HGET', names, name) == id then
      redis.call('HDEL', names, name)
    end
    if redis.call('HGET', lookalikes, key) == id then
      redis.call('HDEL', lookalikes, key)
    end
  end
end
return n

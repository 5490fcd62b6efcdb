-- finish.lua (after gate.lua): the teacher closes a quiz.
-- KEYS[1] meta
-- Reply: 1 when status went from berjalan to selesai, 0 when it was already
-- selesai. Refusals (nothing written): KUIS_FORBIDDEN, KUIS_NOTFOUND,
-- KUIS_CORRUPT.
local g = gate()
local err = g.permitted({'HSET', KEYS[1], 'status', 'selesai'})
if err then
  return err
end
local s, _, err = g.status(KEYS[1])
if err then
  return err
end
if s == 'selesai' then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'selesai')
return 1

-- visibility.lua (after prelude.lua): the teacher sets who sees the board.
-- KEYS[1] meta
-- ARGV[1] the view: tampil, sembunyi or akhir (the Go side checks it)
-- Reply: 1. Refusals (nothing written): KUIS_FORBIDDEN, KUIS_NOTFOUND,
-- KUIS_CORRUPT.
--
-- The field is written only into a meta that exists and is sound, so that a
-- view never creates a meta hash of its own (a quiz that Create never made)
-- and never hides a broken one from Audit's report; the status does not
-- matter: a finished quiz's board may still be shown or hidden.
local meta, view = KEYS[1], ARGV[1]
local g = gate()
local err = g.permitted({'HSET', meta, 'tampilan', view})
if err then
  return err
end
local _, _, err = metaState(meta)
if err then
  return err
end
redis.call('HSET', meta, 'tampilan', view)
return 1

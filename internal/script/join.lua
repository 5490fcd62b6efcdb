-- join.lua (after prelude.lua): put a participant on a running quiz's board
-- with 0 points, unless they are on it, in one atomic step, and read their
-- place.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order
-- ARGV[1] the participant (validated in Go), ARGV[2] "time" to read the
-- place in time order (from the order set), else empty; ARGV[3] '1' only
-- when the caller waits for replicas (WithReplicas).
-- Reply: {score, position, higher, wrote}: the participant's board score,
-- position (ZREVRANK, 0-based, in the set that orders the board) and the
-- number of members with more points, as standing.lua reads them; wrote is
-- 1 when the run wrote, 0 when it wrote nothing (the participant was on the
-- board), or, with ARGV[3], when the participant was on the board and the
-- no-op its WAIT follows failed, that write's error text. Refusals (nothing
-- written), in the order checked: KUIS_FORBIDDEN, KUIS_NOTFOUND,
-- KUIS_CORRUPT (malformed meta), KUIS_FINISHED (a participant not on the
-- board of a finished quiz, whatever its other keys hold, as for an answer),
-- KUIS_CORRUPT (a key of the wrong type, the participant's score not sound
-- or their place not agreeing with it, or a log whose next entry would be at
-- a time an order place cannot hold).
--
-- A new participant gets three writes: the join entry in the log (peserta,
-- skor 0; its ID holds the server's time), 0 points on the board, and the
-- order set's place for no answers at that time, after everyone with
-- points. XADD writes first and writes nothing when it fails. A participant
-- on the board writes nothing, even after the finish (a retry of a join
-- whose reply was lost is told so, not refused), but, when the caller waits
-- for replicas, the no-op (touch) that makes the earlier write its WAIT's.
local meta, board, answers, log, order = unpack(KEYS)
local p = ARGV[1]
local g = gate()
local err = g.permitted({'XADD', log, '*', 'a', 'b'}, {'ZADD', board, '0', 'a'}, {'ZADD', order, '0', 'a'})
local status, _
if not err then
  status, _, err = metaState(meta)
end
if err then
  return err
end
local score = redis.pcall('ZSCORE', board, p)
local noBoard = type(score) == 'table' and score.err
if status ~= 'berjalan' and (noBoard or not score) then
  return g.refuse('KUIS_FINISHED')
end
if noBoard then
  return refusal(score, board, 'not a sorted set')
end
local wrote = 0
if score then
  if not sound(score) then
    return corrupt(board, 'member ' .. quote(p) .. ' has score ' .. whole(score) ..
      ', not a non-negative multiple of 10 of at most ' .. whole(maxScore))
  end
else
  _, err = g.sizes(board, answers, log, order)
  if err then
    return err
  end
  local now = redis.call('TIME')
  now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  if now >= unit then
    return corrupt(log, 'the server\'s time is past what an order place can hold')
  end
  local id
  id, err = logAt(log, string.format(int, now) .. '-*', logParticipant, p, logScore, joinScore)
  if not id then
    return err
  end
  -- The place holds the entry's own time: the server's, or after a log's
  -- later last entry, that entry's.
  redis.call('ZADD', board, 0, p)
  redis.call('ZADD', order, place(0, timeOf(id)), p)
  score, wrote = '0', 1
end
local ranked
ranked, err = g.ranking(board, order, ARGV[2] == 'time')
if err then
  return err
end
if ranked ~= board then
  local at = redis.call('ZSCORE', ranked, p)
  if not at or not agrees(at, score) then
    return g.misplaced(ranked, p, at, score)
  end
end
if wrote == 0 and ARGV[3] == '1' then
  wrote = touch(log)
end
return {score, redis.call('ZREVRANK', ranked, p), redis.call('ZCOUNT', board, '(' .. score, '+inf'), wrote}

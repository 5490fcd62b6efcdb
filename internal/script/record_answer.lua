-- record_answer.lua (after prelude.lua): correct answers to one quiz, each
-- counted at most once per (question, participant), one after the other in
-- the order given, in one atomic step.
-- KEYS[1] meta, KEYS[2] board, KEYS[3] answers, KEYS[4] log, KEYS[5] order
-- ARGV: one or more pairs of participant (validated in Go) and question
-- (decimal, >= 1): ARGV[2i-1], ARGV[2i] is answer i. The Go side sends at
-- most MaxAnswers (script.go) pairs, so that no run holds the server long.
-- Reply: one element per answer, in order: {score, duplicate}, the
-- participant's score after that answer and 1 when the pair was already
-- answered (nothing written), else 0; or that answer's refusal as an error
-- reply (nothing written for it): KUIS_FORBIDDEN, KUIS_NOTFOUND,
-- KUIS_FINISHED, KUIS_QUESTION (question above jumlah_soal), KUIS_CORRUPT.
-- A refusal never affects the other answers. A pair counted before the quiz
-- finished still answers {score, 1} after it.
--
-- A counted answer writes four keys: the pair in the answers set, an entry
-- in the log (XADD *, so its ID holds the server's time in milliseconds),
-- +10 on the board (ZADD of the score read plus 10) and the participant's
-- place in the order set: count * 2^42 + (2^42 - 1 - ms), so that ZRANGE ...
-- REV puts more points first and, among equal points, the earlier time
-- first.
local meta, board, answers, log, order = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
-- placeOf formats an answer's place in the order set (prelude.lua's place),
-- from the participant's new score and the ID of its log entry.
local function placeOf(score, id)
  return place(score / 10, msOf(id))
end

-- write writes a new answer: its log entry, its pair, its score and its
-- place. XADD goes first: when it fails (a log of the wrong type, or one
-- whose last ID is the greatest possible) nothing is written, and write
-- returns nil and XADD's error. cur is the participant's score, sound and
-- below maxScore (false for none).
local function write(participant, question, pair, cur)
  local text = string.format(int, (tonumber(cur) or 0) + 10)
  local id = redis.pcall('XADD', log, '*', 'peserta', participant, 'soal', question, 'skor', text)
  if type(id) ~= 'string' then
    return nil, id.err
  end
  redis.call('SADD', answers, pair)
  redis.call('ZADD', board, text, participant)
  redis.call('ZADD', order, placeOf(tonumber(text), id), participant)
  return {text, 0}
end

-- slow is one answer the long way, with every check worded: a repeat
-- answers its score, anything else is refused with nothing written.
local g
local function slow(participant, question)
  g = g or gate()
  local pair = question .. ':' .. participant
  local err = g.permitted({'XADD', log, '*', 'a', 'b'}, {'ZADD', board, '10', participant},
    {'SADD', answers, pair}, {'ZADD', order, '0', participant})
  if err then
    return err
  end
  local s, n, err = g.status(meta)
  if err then
    return err
  end
  if s == 'selesai' then
    -- A finished quiz takes no answer, but a retry of one it counted (its
    -- reply lost before the teacher finished) is told so, not refused.
    if tonumber(question) <= n and redis.pcall('SISMEMBER', answers, pair) == 1 then
      local cur, err = g.score(board, participant)
      if err then
        return err
      end
      if cur then
        return {cur, 1}
      end
    end
    return g.refuse('KUIS_FINISHED')
  end
  if tonumber(question) > n then
    return g.refuse('KUIS_QUESTION', 'question ' .. question .. ' of ' .. whole(n))
  end
  local seen, err = g.call(answers .. ': not a set', 'SISMEMBER', answers, pair)
  if err then
    return err
  end
  local cur, err = g.score(board, participant)
  if err then
    return err
  end
  if seen == 1 then
    if not cur then
      return g.refuse('KUIS_CORRUPT', board .. ': no score for answered pair ' .. pair)
    end
    return {cur, 1}
  end
  local _, err = g.call(log .. ': not a stream', 'XLEN', log)
  if err then
    return err
  end
  local _, err = g.call(order .. ': not a sorted set', 'ZCARD', order)
  if err then
    return err
  end
  if cur and tonumber(cur) + 10 > maxScore then
    return g.refuse('KUIS_CORRUPT', board .. ': member ' .. string.format('%q', participant) .. ' has score ' ..
      whole(cur) .. ', the largest sound score: no answer can add to it')
  end
  local reply, xerr = write(participant, question, pair, cur)
  if not reply then
    return g.refuse('KUIS_CORRUPT', log .. ': takes no entry: ' .. tostring(xerr))
  end
  return reply
end

local out = {}

-- What holds for the whole run is checked once: the quiz runs, the ACL user
-- may run the writes that follow a run's first (XADD, which checks its own
-- right and the log's type: refused, it has written nothing), and the order
-- set is a sorted set, so that no write fails once the first has been made.
-- Otherwise every answer goes the long way.
local f = redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
local n = f[1] == 'berjalan' and questions(f[2])
if n then
  local acl = redis.acl_check_cmd
  if acl and not (acl('SADD', answers, 'a') and acl('ZADD', board, '0', 'a') and acl('ZADD', order, '0', 'a')) then
    n = nil
  end
end
if n and type(redis.pcall('ZCARD', order)) ~= 'number' then
  n = nil
end
if not n then
  for i = 1, #ARGV - 1, 2 do
    out[#out + 1] = slow(ARGV[i], ARGV[i + 1])
  end
  return out
end

-- one is the common case of a run of one answer (a lone caller's, or one
-- quiz among many), with no table built: it returns the reply, or nil
-- (having written nothing) to have the answer taken the long way.
local function one(participant, question)
  if tonumber(question) > n then
    return nil
  end
  local cur = redis.pcall('ZSCORE', board, participant)
  if not sound(cur) or cur and tonumber(cur) + 10 > maxScore then
    return nil -- a corrupt score or one at the largest, or a board of the wrong type
  end
  local pair = question .. ':' .. participant
  local seen = redis.pcall('SISMEMBER', answers, pair)
  if seen == 1 and cur then
    return {cur, 1}
  end
  if seen ~= 0 then
    return nil -- answered, yet no score; or answers of the wrong type
  end
  return write(participant, question, pair, cur)
end
if #ARGV == 2 then
  return {one(ARGV[1], ARGV[2]) or slow(ARGV[1], ARGV[2])}
end

-- The common case reads every participant's score (ZMSCORE) and every
-- pair (SMISMEMBER) at once, counts the answers in that light, and writes
-- them with one SADD and one ZADD each to board and order set: only the log
-- takes a command per answer, since each answer is its own entry. score
-- holds each sound participant's score as it stands (false: none yet);
-- an unsound one is left out and goes the long way. asked[j] is answer j's
-- pair.
local score, seen, asked, who = {}, {}, {}, {}
for i = 1, #ARGV - 1, 2 do
  local participant = ARGV[i]
  asked[#asked + 1] = ARGV[i + 1] .. ':' .. participant
  if not score[participant] then
    score[participant] = true
    who[#who + 1] = participant
  end
end
local cur = redis.pcall('ZMSCORE', board, unpack(who))
local was = redis.pcall('SMISMEMBER', answers, unpack(asked))
if cur.err or was.err then
  -- A board or answers set of the wrong type: every answer goes the long way
  -- and is refused there, worded.
  for i = 1, #ARGV - 1, 2 do
    out[#out + 1] = slow(ARGV[i], ARGV[i + 1])
  end
  return out
end
for j, participant in ipairs(who) do
  if sound(cur[j]) then
    score[participant] = cur[j] and tonumber(cur[j])
  else
    score[participant] = nil
  end
end
for j, pair in ipairs(asked) do
  if was[j] == 1 then
    seen[pair] = true
  end
end

-- The writes wait in added (pairs), moved (participants, in first-write
-- order), shown (participant: its score as a string) and last (participant:
-- the ID of its latest entry) until flush, which runs before any answer
-- goes the long way (so that it sees what the run counted so far) and at
-- the end.
-- Each new score is turned into a string once, for the log, the reply and
-- the board.
local added, moved, shown, last = {}, {}, {}, {}
local function flush()
  if #added == 0 then
    return
  end
  redis.call('SADD', answers, unpack(added))
  local b, o = {}, {}
  for _, participant in ipairs(moved) do
    b[#b + 1], b[#b + 2] = shown[participant], participant
    o[#o + 1], o[#o + 2] = placeOf(score[participant], last[participant]), participant
  end
  redis.call('ZADD', board, unpack(b))
  redis.call('ZADD', order, unpack(o))
  added, moved, shown, last = {}, {}, {}, {}
end

-- quick is one answer's common case: it returns the reply, or nil (having
-- written nothing) to have the answer taken the long way.
local function quick(participant, question, pair)
  if tonumber(question) > n then
    return nil
  end
  local s = score[participant]
  if s == nil then
    return nil
  end
  if seen[pair] then
    if s then
      return {whole(s), 1}
    end
    return nil -- answered, yet no score: the long way words it
  end
  if s and s + 10 > maxScore then
    return nil -- a score at the largest sound one: the long way refuses it
  end
  s = (s or 0) + 10
  local text = string.format(int, s)
  local id = redis.pcall('XADD', log, '*', 'peserta', participant, 'soal', question, 'skor', text)
  if type(id) ~= 'string' then
    -- The log is no stream, or its last ID is the greatest possible: the
    -- long way words the refusal.
    return nil
  end
  if not shown[participant] then
    moved[#moved + 1] = participant
  end
  score[participant], shown[participant], last[participant] = s, text, id
  seen[pair] = true
  added[#added + 1] = pair
  return {text, 0}
end

for j = 1, #asked do
  local participant, question = ARGV[2 * j - 1], ARGV[2 * j]
  local reply = quick(participant, question, asked[j])
  if not reply then
    flush()
    reply = slow(participant, question)
    if not reply.err then
      score[participant] = nil -- written the long way: its later answers go that way too
    end
  end
  out[j] = reply
end
flush()
return out

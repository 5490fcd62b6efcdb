-- record_answer.lua (after prelude.lua): correct answers to one or more
-- quizzes, each counted at most once per (question, participant), one after
-- the other in the order given, in one atomic step.
-- KEYS: five per quiz of the run: meta, board, answers, log, order of the
-- first quiz, then of the second, and so on.
-- ARGV: one triple per answer: the quiz's number in KEYS (1 for the first
-- five keys), the participant (validated in Go) and the question (decimal,
-- >= 1). The Go side sends at most MaxAnswers (script.go) answers. Then,
-- only when the caller waits for replicas (WithReplicas), '1'.
-- Reply: one element per answer, in order: the participant's score after the
-- answer, plus 1 when the pair was already answered (nothing written); or
-- that answer's refusal as an error reply (nothing written for it):
-- KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_FINISHED, KUIS_QUESTION (question above
-- jumlah_soal), KUIS_CORRUPT (a key or score that breaks the contract, or a
-- log whose next entry would be at a time an order place cannot hold). A
-- refusal never affects another answer, of its quiz or another. A pair
-- counted before the quiz finished still answers as a repeat after it.
-- With ARGV's last '1', one element more, last: 1 when the run wrote, 0 when
-- it wrote nothing and answered no repeat, or, when its repeats were all it
-- answered and its no-op write failed, that write's error text.
--
-- A repeat writes nothing, so a WAIT after its run would cover nothing of
-- the write that counted the answer (Redis 7.2 and later wait for the offset
-- of their connection's last write; 7.0 for the primary's offset after the
-- connection's last command). When the caller waits for replicas, a run that
-- answered a repeat and wrote nothing else writes a no-op that is propagated
-- as any write: XSETID of the quiz's log to its own last ID (from XINFO
-- STREAM), which changes nothing, so that its connection's offset is the
-- primary's after the earlier write.
--
-- A counted answer writes four keys of its quiz: its entry in the log (its
-- ID holds the server's time), its pair in the answers set, +10 on the board
-- and the participant's place in the order set. Quizzes share nothing, so
-- the run takes them one after the other, and each quiz's answers in their
-- order: its status and the order set's type are read once, then each
-- answer reads its pair and score and writes at once, so that the next
-- answer sees it. Every key is read, or its type checked, before an answer
-- writes, and XADD, its first write, writes nothing when it fails: no
-- refusal writes. A Lua table costs the server about what a command does,
-- so the run builds none but its reply and its list of each quiz's answers.
--
-- The run reads the server's clock once: every entry asks for its time
-- (XADD <ms>-*). A log whose last entry is at that time's end or later (a
-- clock gone back, or an entry written behind the library's back) takes
-- the entry after its last one instead, once checked that an order place
-- can hold its time.
local nq, na = #KEYS / 5, math.floor(#ARGV / 3)
local confirm = #ARGV % 3 == 1
local acl = redis.acl_check_cmd

-- Each quiz's answers, in order: first[j], then after[a] of each.
local first, after, tail = {}, {}, {}
for a = 1, na do
  local j = tonumber(ARGV[3 * a - 2])
  if tail[j] then
    after[tail[j]] = a
  else
    first[j] = a
  end
  tail[j] = a
end

local now = redis.call('TIME')
now = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)

-- The quiz being answered: its keys, and what its reads found. refused
-- refuses all its answers; running and n are its status and question count;
-- noSet, noBoard and noOrder refuse for a key of the wrong type; ms and at
-- are the time of its entries and the ID they ask for.
local meta, board, answers, log, order
local refused, running, n, noSet, noBoard, noOrder, ms, at

-- answer decides one answer of the quiz: p with score s (false: none yet;
-- a string: not sound) and seen (the pair was counted). It returns the
-- reply, or true for a new answer to write.
local function answer(p, question, s, seen)
  if refused then
    return refused
  end
  if not running then
    -- A finished quiz takes no answer, but a retry of one it counted (its
    -- reply lost before the teacher finished) is told so, not refused.
    if tonumber(question) > n or noSet or not seen then
      return redis.error_reply('KUIS_FINISHED')
    end
  elseif tonumber(question) > n then
    return redis.error_reply('KUIS_QUESTION question ' .. question .. ' of ' .. whole(n))
  elseif noSet then
    return noSet
  end
  if noBoard then
    return noBoard
  end
  if type(s) == 'string' then
    return corrupt(board, 'member ' .. quote(p) .. ' has score ' .. whole(s) ..
      ', not a non-negative multiple of 10 of at most ' .. whole(maxScore))
  end
  if seen then
    if s then
      return s + 1
    end
    if not running then
      return redis.error_reply('KUIS_FINISHED')
    end
    return corrupt(board, 'no score for answered pair ' .. question .. ':' .. p)
  end
  if noOrder then
    if type(redis.pcall('XLEN', log)) ~= 'number' then
      return corrupt(log, 'not a stream')
    end
    return noOrder
  end
  if (s or 0) / 10 >= maxCount then
    return corrupt(board, 'member ' .. quote(p) .. ' has score ' .. whole(s) ..
      ': no order place can count another answer')
  end
  return true
end

-- score is a ZSCORE reply as answer takes it.
local function score(z)
  if not sound(z) then
    return z
  end
  return z and tonumber(z)
end

-- logged appends the log entry of p's answer to question, taking score s
-- (logAt); an entry that took a later time than at's moves the run's time
-- on to it. It returns the entry's ID, or nil and the refusal.
local function logged(p, question, s)
  local id, t = logAt(log, at, 'peserta', p, 'soal', question, 'skor', s)
  if id and t then
    ms, at = t, string.format(int, t) .. '-*'
  end
  return id, t
end

local out, wrote, repeated = {}, false, {}
for j = 1, nq do
  local a = first[j]
  local k = 5 * (j - 1)
  meta, board, answers, log, order = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5]
  refused, running, n, noSet, noBoard, noOrder = nil, nil, nil, nil, nil, nil
  ms, at = now, string.format(int, now) .. '-*'
  -- Checking the rights first means a refused quiz writes nothing.
  if acl and not (acl('XADD', log, '*', 'a', 'b') and acl('ZADD', board, '0', 'a') and acl('SADD', answers, 'a') and
    acl('ZADD', order, '0', 'a')) then
    refused = redis.error_reply('KUIS_FORBIDDEN the ACL user may not write the quiz\'s scores')
  elseif now >= unit then
    refused = corrupt(log, 'the server\'s time is past what an order place can hold')
  end
  if a and not refused then
    local s, err
    s, n, err = metaState(meta)
    if err then
      refused = err
    else
      running = s == 'berjalan'
      if running then
        local size = redis.pcall('ZCARD', order)
        if type(size) == 'table' then
          noOrder = refusal(size, order, 'not a sorted set')
        end
      end
    end
  end
  while a do
    local p, question = ARGV[3 * a - 1], ARGV[3 * a]
    local pair = question .. ':' .. p
    local s, seen
    if not refused then
      local r = redis.pcall('SISMEMBER', answers, pair)
      if type(r) == 'table' then
        noSet = refusal(r, answers, 'not a set')
      end
      seen = r == 1
      r = redis.pcall('ZSCORE', board, p)
      if type(r) == 'table' and r.err then
        noBoard = refusal(r, board, 'not a sorted set')
      end
      s = score(r)
    end
    local reply = answer(p, question, s, seen)
    if reply == true then -- a new answer: write it
      s = (s or 0) + 10
      local text = string.format(int, s)
      local id, err = logged(p, question, text)
      if id then
        redis.call('SADD', answers, pair)
        redis.call('ZADD', board, text, p)
        redis.call('ZADD', order, place(s / 10, ms), p)
        reply, wrote = s, true
      else
        reply = err
      end
    elseif type(reply) == 'number' and repeated[#repeated] ~= log then
      repeated[#repeated + 1] = log
    end
    out[a] = reply
    a = after[a]
  end
end
if confirm then
  local status = wrote and 1 or 0
  for _, lg in ipairs(repeated) do
    if status == 1 then
      break
    end
    status = touch(lg)
  end
  out[na + 1] = status
end
return out

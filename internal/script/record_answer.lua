-- record_answer.lua (after prelude.lua): correct answers to one or more
-- quizzes, each counted at most once per (question, participant), one after
-- the other in the order given, in one atomic step.
-- KEYS: five per quiz of the run: meta, board, answers, log, order of the
-- first quiz, then of the second, and so on.
-- ARGV: one triple per answer: the quiz's number in KEYS (1 for the first
-- five keys), the participant (validated in Go) and the question (decimal,
-- >= 1). The Go side sends at most MaxAnswers (script.go) answers.
-- Reply: one element per answer, in order: the participant's score after the
-- answer, plus 1 when the pair was already answered (nothing written); or
-- that answer's refusal as an error reply (nothing written for it):
-- KUIS_FORBIDDEN, KUIS_NOTFOUND, KUIS_FINISHED, KUIS_QUESTION (question above
-- jumlah_soal), KUIS_CORRUPT. A refusal never affects another answer, of its
-- quiz or another. A pair counted before the quiz finished still answers
-- as a repeat after it.
--
-- A counted answer writes four keys of its quiz: its entry in the log (XADD
-- *, so that its ID holds the server's time), its pair in the answers set,
-- +10 on the board and the participant's place in the order set. Quizzes
-- share nothing, so the run takes them one after the other, and each quiz's
-- answers in their order: its status and the order set's type are read once,
-- then each answer reads its pair and score and writes at once, so that the
-- next answer sees it. Every key is read, or its type checked, before an
-- answer writes, and XADD, its first write, writes nothing when it fails: no
-- refusal writes. A Lua table costs the server about what a command does,
-- so the run builds none but its reply and its list of each quiz's answers.
--
-- A quiz's first entry of the run is XADD *, its ID's time parsed once for
-- the places; its later entries take that time too (XADD <ms>-*).
local nq, na = #KEYS / 5, #ARGV / 3
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

local function quote(s)
  return string.format('%q', string.sub(s, 1, 64))
end

-- refusal words the error reply r of a command on key: a key of the wrong
-- type (WRONGTYPE) is KUIS_CORRUPT, with what it should be; any other error,
-- such as the ACL's, is passed on as the server worded it.
local function refusal(r, key, what)
  if string.sub(r.err, 1, 9) == 'WRONGTYPE' then
    return redis.error_reply('KUIS_CORRUPT ' .. key .. ': ' .. what)
  end
  return r
end

-- The quiz being answered: its keys, and what its reads found. refused
-- refuses all its answers; running and n are its status and question count;
-- noSet, noBoard and noOrder refuse for a key of the wrong type.
local meta, board, answers, log, order
local refused, running, n, noSet, noBoard, noOrder

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
    return redis.error_reply('KUIS_CORRUPT ' .. board .. ': member ' .. quote(p) .. ' has score ' ..
      whole(s) .. ', not a non-negative multiple of 10 of at most ' .. whole(maxScore))
  end
  if seen then
    if s then
      return s + 1
    end
    if not running then
      return redis.error_reply('KUIS_FINISHED')
    end
    return redis.error_reply('KUIS_CORRUPT ' .. board .. ': no score for answered pair ' .. question .. ':' .. p)
  end
  if noOrder then
    if type(redis.pcall('XLEN', log)) ~= 'number' then
      return redis.error_reply('KUIS_CORRUPT ' .. log .. ': not a stream')
    end
    return noOrder
  end
  if (s or 0) + 10 > maxScore then
    return redis.error_reply('KUIS_CORRUPT ' .. board .. ': member ' .. quote(p) .. ' has score ' ..
      whole(s) .. ', the largest sound score: no answer can add to it')
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

local out = {}
for j = 1, nq do
  local a = first[j]
  local k = 5 * (j - 1)
  meta, board, answers, log, order = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5]
  refused, running, n, noSet, noBoard, noOrder = nil, nil, nil, nil, nil, nil
  local ms, at -- the quiz's time in this run, and the ID its later entries ask for
  -- Checking the rights first means a refused quiz writes nothing.
  if acl and not (acl('XADD', log, '*', 'a', 'b') and acl('ZADD', board, '0', 'a') and acl('SADD', answers, 'a') and
    acl('ZADD', order, '0', 'a')) then
    refused = redis.error_reply('KUIS_FORBIDDEN the ACL user may not write the quiz\'s scores')
  end
  if a and not refused then
    local f = redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
    if f.err then
      refused = refusal(f, meta, 'not a hash')
    elseif not f[1] then
      if redis.call('EXISTS', meta) == 0 then
        refused = redis.error_reply('KUIS_NOTFOUND')
      else
        refused = redis.error_reply('KUIS_CORRUPT ' .. meta .. ': field status is missing')
      end
    elseif f[1] ~= 'berjalan' and f[1] ~= 'selesai' then
      refused = redis.error_reply('KUIS_CORRUPT ' .. meta .. ': field status is ' .. quote(f[1]))
    else
      running, n = f[1] == 'berjalan', questions(f[2])
      if not n then
        refused = redis.error_reply('KUIS_CORRUPT ' .. meta .. ': field jumlah_soal is not a positive integer')
      elseif running then
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
      if ms and not at then
        at = string.format(int, ms) .. '-*'
      end
      local id = redis.pcall('XADD', log, at or '*', 'peserta', p, 'soal', question, 'skor', text)
      if type(id) ~= 'string' and at then
        at = nil -- its time's sequence is exhausted
        id = redis.pcall('XADD', log, '*', 'peserta', p, 'soal', question, 'skor', text)
      end
      if type(id) == 'string' and not at then
        ms = msOf(id)
      end
      if type(id) ~= 'string' then
        if string.sub(id.err, 1, 9) == 'WRONGTYPE' then
          reply = refusal(id, log, 'not a stream')
        else -- the ACL was checked: its last ID is the greatest possible
          reply = redis.error_reply('KUIS_CORRUPT ' .. log .. ': takes no entry: ' .. id.err)
        end
      else
        redis.call('SADD', answers, pair)
        redis.call('ZADD', board, text, p)
        redis.call('ZADD', order, place(s / 10, ms), p)
        reply = s
      end
    end
    out[a] = reply
    a = after[a]
  end
end
return out

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
-- +10 on the board and the participant's place in the order set. The reads
-- a quiz needs (its status, its participants' scores, its pairs, the order
-- set's type) are one command each for the whole run, and so are its writes
-- but XADD, which each answer needs for its own entry. Every key is read, or
-- its type checked, before anything is written, and XADD, the first write
-- of an answer, writes nothing when it fails: no refusal writes.
local acl = redis.acl_check_cmd
local nq = #KEYS / 5

-- The answers of each quiz: its participants (each once, in first order),
-- its pairs, and each answer's quiz.
local who, asked, quizOf = {}, {}, {}
for j = 1, nq do
  who[j], asked[j] = {}, {}
end
local listed = {}
for a = 1, #ARGV, 3 do
  local j = tonumber(ARGV[a])
  local p = ARGV[a + 1]
  quizOf[#quizOf + 1] = j
  local pairs = asked[j]
  pairs[#pairs + 1] = ARGV[a + 2] .. ':' .. p
  local key = j .. ':' .. p
  if not listed[key] then
    listed[key] = true
    who[j][#who[j] + 1] = p
  end
end

local function quote(s)
  return string.format('%q', string.sub(s, 1, 64))
end

-- refusal words the error of a read of key: a key of the wrong type
-- (WRONGTYPE) is KUIS_CORRUPT, with what it should be; any other error, such
-- as the ACL's, is passed on as the server worded it.
local function refusal(r, key, what)
  if string.sub(r.err, 1, 9) == 'WRONGTYPE' then
    return redis.error_reply('KUIS_CORRUPT ' .. key .. ': ' .. what)
  end
  return r
end

-- What each quiz's reads found. q.refusal refuses all its answers;
-- q.running, q.n its status and question count; q.score[p] each sound
-- participant's score as it stands (false: none yet; nil: unsound, with
-- q.bad[p] its text); q.seen[pair] its counted pairs; q.noSet, q.noBoard and
-- q.noOrder the refusals of a key of the wrong type.
local quiz = {}
for j = 1, nq do
  local k = 5 * (j - 1)
  local meta, board, answers, log, order = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5]
  local q = {board = board, answers = answers, log = log, order = order, score = {}, bad = {}, seen = {},
    added = {}, moved = {}, shown = {}, last = {}}
  quiz[j] = q
  if #who[j] > 0 then
    -- Checking the rights first means a refused quiz writes nothing.
    if acl then
      for _, c in ipairs({{'XADD', log, '*', 'a', 'b'}, {'ZADD', board, '0', 'a'}, {'SADD', answers, 'a'},
        {'ZADD', order, '0', 'a'}}) do
        if not acl(unpack(c)) then
          q.refusal = redis.error_reply('KUIS_FORBIDDEN the ACL user may not run ' .. c[1])
          break
        end
      end
    end
    local f = not q.refusal and redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
    if not f then
    elseif f.err then
      q.refusal = refusal(f, meta, 'not a hash')
    elseif not f[1] then
      if redis.call('EXISTS', meta) == 0 then
        q.refusal = redis.error_reply('KUIS_NOTFOUND')
      else
        q.refusal = redis.error_reply('KUIS_CORRUPT ' .. meta .. ': field status is missing')
      end
    elseif f[1] ~= 'berjalan' and f[1] ~= 'selesai' then
      q.refusal = redis.error_reply('KUIS_CORRUPT ' .. meta .. ': field status is ' .. quote(f[1]))
    elseif not questions(f[2]) then
      q.refusal = redis.error_reply('KUIS_CORRUPT ' .. meta .. ': field jumlah_soal is not a positive integer')
    else
      q.running, q.n = f[1] == 'berjalan', questions(f[2])
      local was = redis.pcall('SMISMEMBER', answers, unpack(asked[j]))
      if was.err then
        q.noSet = refusal(was, answers, 'not a set')
      else
        for i, pair in ipairs(asked[j]) do
          q.seen[pair] = was[i] == 1
        end
      end
      local cur = redis.pcall('ZMSCORE', board, unpack(who[j]))
      if cur.err then
        q.noBoard = refusal(cur, board, 'not a sorted set')
      else
        for i, p in ipairs(who[j]) do
          if sound(cur[i]) then
            q.score[p] = cur[i] and tonumber(cur[i])
          else
            q.bad[p] = cur[i]
          end
        end
      end
      local size = q.running and redis.pcall('ZCARD', order)
      if type(size) == 'table' then
        q.noOrder = refusal(size, order, 'not a sorted set')
      end
    end
  end
end

-- answer counts or refuses one answer of quiz q, as the state of the run so
-- far has it.
local function answer(q, p, question)
  if q.refusal then
    return q.refusal
  end
  local pair = question .. ':' .. p
  local s = q.score[p]
  if not q.running then
    -- A finished quiz takes no answer, but a retry of one it counted (its
    -- reply lost before the teacher finished) is told so, not refused.
    if tonumber(question) > q.n or q.noSet or not q.seen[pair] then
      return redis.error_reply('KUIS_FINISHED')
    end
  elseif tonumber(question) > q.n then
    return redis.error_reply('KUIS_QUESTION question ' .. question .. ' of ' .. whole(q.n))
  elseif q.noSet then
    return q.noSet
  end
  if q.noBoard then
    return q.noBoard
  end
  if s == nil then
    return redis.error_reply('KUIS_CORRUPT ' .. q.board .. ': member ' .. quote(p) .. ' has score ' ..
      whole(q.bad[p]) .. ', not a non-negative multiple of 10 of at most ' .. whole(maxScore))
  end
  if q.seen[pair] then
    if s then
      return s + 1
    end
    if not q.running then
      return redis.error_reply('KUIS_FINISHED')
    end
    return redis.error_reply('KUIS_CORRUPT ' .. q.board .. ': no score for answered pair ' .. pair)
  end
  if q.noOrder then
    if type(redis.pcall('XLEN', q.log)) ~= 'number' then
      return redis.error_reply('KUIS_CORRUPT ' .. q.log .. ': not a stream')
    end
    return q.noOrder
  end
  s = (s or 0) + 10
  if s > maxScore then
    return redis.error_reply('KUIS_CORRUPT ' .. q.board .. ': member ' .. quote(p) .. ' has score ' ..
      whole(s - 10) .. ', the largest sound score: no answer can add to it')
  end
  local text = string.format(int, s)
  local id = redis.pcall('XADD', q.log, '*', 'peserta', p, 'soal', question, 'skor', text)
  if type(id) ~= 'string' then
    if string.sub(id.err, 1, 9) == 'WRONGTYPE' then
      return refusal(id, q.log, 'not a stream')
    end
    return redis.error_reply('KUIS_CORRUPT ' .. q.log .. ': takes no entry: ' .. id.err)
  end
  if not q.shown[p] then
    q.moved[#q.moved + 1] = p
  end
  q.score[p], q.shown[p], q.last[p], q.seen[pair] = s, text, id, true
  q.added[#q.added + 1] = pair
  return s
end

local out = {}
for a = 1, #quizOf do
  out[a] = answer(quiz[quizOf[a]], ARGV[3 * a - 1], ARGV[3 * a])
end

-- Each quiz's writes but XADD, one command per key.
for _, q in ipairs(quiz) do
  if #q.added > 0 then
    redis.call('SADD', q.answers, unpack(q.added))
    local b, o = {}, {}
    for _, p in ipairs(q.moved) do
      b[#b + 1], b[#b + 2] = q.shown[p], p
      o[#o + 1], o[#o + 2] = place(q.score[p] / 10, msOf(q.last[p])), p
    end
    redis.call('ZADD', q.board, unpack(b))
    redis.call('ZADD', q.order, unpack(o))
  end
end
return out

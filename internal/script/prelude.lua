-- prelude.lua: what every script shares; script.go prepends it.
-- It defines constants and functions only and runs nothing by itself.
--
-- Refusals are error replies whose first word is a code the Go side maps to
-- a sentinel error (errors.go's scriptCodes): KUIS_NOTFOUND, KUIS_FINISHED,
-- KUIS_RUNNING, KUIS_EXISTS, KUIS_QUESTION, KUIS_CORRUPT, KUIS_FORBIDDEN,
-- KUIS_BUSY, KUIS_CHANGED, KUIS_CONFLICT, KUIS_NAMETAKEN.
--
-- Every function a script defines is built anew on every call: the record
-- script, the hot path, uses the small functions below and never builds
-- gate()'s helpers.

-- The wire codec, the Lua twin of internal/wire (a test checks these
-- constants against Go's and runs both codecs on the same inputs).

-- maxScore is the largest sound score, 2^53 - 2 (wire.MaxScore).
local maxScore = 9007199254740990
-- unit is 2^42 ms (wire.PlaceUnit): a place is count * unit + (unit - 1 -
-- ms), count a participant's counted answers and ms the server time of the
-- latest, so that ZRANGE ... REV puts more answers first and, among as many,
-- the earlier time first; without a time (ms 0) it is count * unit. A place
-- is exact below 2^53: count is at most maxCount (wire.MaxPlaceCount), ms
-- below unit.
local unit = 4398046511104
local maxCount = 2047
-- maxQuestions bounds jumlah_soal (wire.MaxQuestions).
local maxQuestions = 1000
-- maxName bounds a stored participant name, in bytes (wire.MaxName).
local maxName = 256
-- The answer log's entry fields (wire.LogParticipant, wire.LogQuestion,
-- wire.LogScore, wire.LogStatus).
local logParticipant = 'peserta'
local logQuestion = 'soal'
local logScore = 'skor'
local logStatus = 'status'
-- joinScore is the skor of a join entry (wire.JoinScore).
local joinScore = '0'

-- int formats an integer exactly: '%d' where it is 64-bit, and cheaper for
-- the server than the floating-point '%.0f'; Lua's '%d' is a C long, 32-bit
-- on 32-bit builds of Redis.
local int = string.format('%d', 4398046511104) == '4398046511104' and '%d' or '%.0f'

-- whole formats an integer-valued number, or a reply string holding one, in
-- full (1000000000000000), where Lua's tostring and .. keep 14 significant
-- digits and switch to exponent form (1e+15). Anything else is returned as
-- tostring gives it.
local function whole(x)
  local n = tonumber(x)
  if n and n == math.floor(n) then
    return string.format('%.0f', n)
  end
  return tostring(x)
end

-- quote is a stored string as messages show it: quoted, cut to 64 bytes.
local function quote(s)
  return string.format('%q', string.sub(s, 1, 64))
end

-- sound reports whether a ZSCORE reply (false for no member) is a score the
-- contract allows: a non-negative multiple of 10 of at most maxScore.
local function sound(score)
  if score == false then
    return true
  end
  local n = tonumber(score)
  return n ~= nil and n >= 0 and n <= maxScore and n % 10 == 0
end

-- number decodes a positive decimal integer without sign or leading zeros of
-- at most most and maxQuestions: the form of jumlah_soal and of every
-- question number (wire.Question). It returns the number, or nil.
local function number(s, most)
  if type(s) == 'string' and #s <= 4 and string.match(s, '^[1-9]%d*$') then
    local n = tonumber(s)
    if n <= most and n <= maxQuestions then
      return n
    end
  end
  return nil
end

-- questions decodes jumlah_soal (wire.Questions).
local function questions(s)
  return number(s, maxQuestions)
end

-- firstAfter is the range of the byte after a UTF-8 lead byte: 128 to 191
-- (any), but narrower after the leads that would allow overlong forms
-- (224, 240), surrogates (237), code points past U+10FFFF (244), or U+0080
-- to U+009F, which are control characters (194).
local firstAfter = {any = {128, 191}, [194] = {160, 191}, [224] = {160, 191}, [237] = {128, 159}, [240] = {144, 191},
  [244] = {128, 143}}

-- storedName reports whether s may be a stored participant name
-- (wire.StoredName): 1 to maxName bytes of valid UTF-8 without control
-- characters (C0, DEL, C1).
local function storedName(s)
  local n = #s
  if n == 0 or n > maxName or string.find(s, '[%z\1-\31\127]') then
    return false
  end
  local i = 1
  while i <= n do
    local c = string.byte(s, i)
    -- The bytes after a lead byte: none below 128, 1 from 194, 2 from 224,
    -- 3 from 240 to 244; any other is no lead byte.
    local more = c < 128 and 0 or c >= 194 and c <= 223 and 1 or c >= 224 and c <= 239 and 2 or c >= 240 and c <= 244 and 3
    if not more then
      return false
    end
    local lo, hi = unpack(firstAfter[c] or firstAfter.any)
    for j = 1, more do
      local b = string.byte(s, i + j)
      if not b or b < lo or b > hi then
        return false
      end
      lo, hi = 128, 191
    end
    i = i + 1 + more
  end
  return true
end

-- pairOf decodes an answers set member (wire.ParsePair) of a quiz of n
-- questions: it returns the question number and the participant, or nil.
local function pairOf(member, n)
  local q, p = string.match(member, '^([^:]*):(.*)$')
  local question = q and number(q, n)
  if question and storedName(p) then
    return question, p
  end
  return nil
end

-- answerOf returns the participant and question number of a whole answer
-- entry of the log ({id, {field, value, ...}}, as XRANGE replies inside a
-- script) of a quiz of n questions, or nil for any other entry.
local function answerOf(entry, n)
  local f, p, q = entry[2], nil, nil
  for j = 1, #f, 2 do
    if f[j] == logParticipant then
      p = f[j + 1]
    elseif f[j] == logQuestion then
      q = f[j + 1]
    end
  end
  local question = q and number(q, n)
  if p and question and storedName(p) then
    return p, question
  end
  return nil
end

-- joinOf returns the participant of a join entry of the log ({id, {field,
-- value, ...}}, as XRANGE replies inside a script): exactly the fields
-- peserta and skor = joinScore, with a stored name (wire.Join). It returns
-- nil for any other entry.
local function joinOf(entry)
  local f, p, s = entry[2], nil, nil
  if #f ~= 4 then
    return nil
  end
  for j = 1, 3, 2 do
    if f[j] == logParticipant then
      p = f[j + 1]
    elseif f[j] == logScore then
      s = f[j + 1]
    end
  end
  if p and s == joinScore and storedName(p) then
    return p
  end
  return nil
end

-- timeOf is the time in ms of a stream entry ID as an order place holds it:
-- 0 (no time) for a time the place cannot hold.
local function timeOf(id)
  local ms = tonumber(string.match(id, '^%d+') or '')
  if ms and ms < unit then
    return ms
  end
  return 0
end

-- place is the order set's score for count counted answers, the latest at
-- ms (0: none known), as a reply string, or nil when a place cannot hold
-- them (wire.Place).
local function place(count, ms)
  if count < 0 or count > maxCount or ms < 0 or ms >= unit then
    return nil
  end
  local p = count * unit
  if ms > 0 then
    p = p + unit - 1 - ms
  end
  return string.format(int, p)
end

-- agrees reports whether a place in the order set agrees with a board score
-- (both replies, false for none): both sound, and the place's count of
-- answers is the score's (wire.Agrees).
local function agrees(place, score)
  local p, s = tonumber(place), tonumber(score)
  return p ~= nil and s ~= nil and p >= 0 and p < maxScore + 2 and p == math.floor(p) and sound(score) and
    math.floor(p / unit) == s / 10
end

-- ledgerNumber decodes a decimal from 0 to maxScore without sign or leading
-- zeros: every number of a course ledger. It returns the number, or nil.
local function ledgerNumber(s)
  if type(s) == 'string' and #s <= 16 and (s == '0' or string.match(s, '^[1-9]%d*$')) then
    local n = tonumber(s)
    if n <= maxScore then
      return n
    end
  end
  return nil
end

-- ledgerPoints decodes a ledger value: a multiple of 10 from 0 to maxScore
-- (wire.ParseLedgerPoints). It returns the number, or nil.
local function ledgerPoints(s)
  local n = ledgerNumber(s)
  if n and n % 10 == 0 then
    return n
  end
  return nil
end

-- markerOf decodes an instance's marker, '<possible> <participants>
-- <points> <digest> <folded_ms>' (wire.ParseMarker): a table with those
-- names, or nil.
local function markerOf(s)
  if type(s) ~= 'string' then
    return nil
  end
  local f = {}
  for part in string.gmatch(s, '[^ ]+') do
    f[#f + 1] = part
  end
  if #f ~= 5 or #s ~= #f[1] + #f[2] + #f[3] + #f[4] + #f[5] + 4 or not string.match(f[4], '^[0-9a-f]+$') or #f[4] ~= 32 then
    return nil
  end
  local m = {possible = ledgerNumber(f[1]), participants = ledgerNumber(f[2]), points = ledgerPoints(f[3]), digest = f[4],
    folded = ledgerNumber(f[5])}
  if not (m.possible and m.participants and m.points and m.folded) or m.possible < 10 or m.possible > 10 * maxQuestions or
    m.possible % 10 ~= 0 then
    return nil
  end
  return m
end

-- markerString writes a marker table in its one form (wire.Marker.String).
local function markerString(m)
  return string.format(int, m.possible) .. ' ' .. string.format(int, m.participants) .. ' ' ..
    string.format(int, m.points) .. ' ' .. m.digest .. ' ' .. string.format(int, m.folded)
end

-- corrupt is the refusal of data that breaks the contract, naming the key.
local function corrupt(key, msg)
  return redis.error_reply('KUIS_CORRUPT ' .. key .. ': ' .. msg)
end

-- refusal words the error reply r of a command on key: a key of the wrong
-- type (WRONGTYPE, which writes nothing) is KUIS_CORRUPT saying what it
-- should be; any other error, such as the ACL's, is passed on as the server
-- worded it, so the Go side maps it (ErrForbidden).
local function refusal(r, key, what)
  if string.sub(r.err, 1, 9) == 'WRONGTYPE' then
    return corrupt(key, what)
  end
  return r
end

-- logAt appends an entry of the fields and values given to log, asking for
-- the time at ('<ms>-*'). A log whose last entry is at that time's end or
-- later (a clock gone back, or an entry written behind the library's back)
-- takes the entry right after its last one instead, at that entry's time
-- (the next millisecond once its sequence is exhausted), once checked that
-- an order place can hold that time. It returns the entry's ID and, when the
-- entry took another time than at's, that time in ms; or nil and the
-- refusal (KUIS_CORRUPT), having written nothing.
local function logAt(log, at, ...)
  local id = redis.pcall('XADD', log, at, ...)
  if type(id) == 'string' then
    return id, nil
  end
  if string.sub(id.err, 1, 9) == 'WRONGTYPE' then
    return nil, corrupt(log, 'not a stream')
  end
  local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)[1]
  if not last then
    return nil, corrupt(log, 'takes no entry: ' .. id.err)
  end
  local t = tonumber(string.match(last[1], '^%d+')) or unit -- miniredis's Lua has no tonumber past 2^63
  if string.match(last[1], '-18446744073709551615$') then
    t = t + 1
  end
  if t >= unit then
    return nil, corrupt(log, 'its last entry ' .. last[1] .. ' leaves no time an order place can hold for the next')
  end
  id = redis.pcall('XADD', log, string.format(int, t) .. '-*', ...)
  if type(id) ~= 'string' then
    return nil, corrupt(log, 'takes no entry: ' .. id.err)
  end
  return id, t
end

-- touch writes a no-op on log, so that a WAIT after a run that wrote nothing
-- else covers the earlier writes it answers for (WithReplicas): XSETID of
-- the log to its own last ID (from XINFO STREAM), which changes nothing and
-- is propagated as any write. It returns 1, or the error text.
local function touch(log)
  local info = redis.pcall('XINFO', 'STREAM', log)
  if info.err then
    return info.err
  end
  for i = 1, #info - 1, 2 do
    if info[i] == 'last-generated-id' then
      local r = redis.pcall('XSETID', log, info[i + 1])
      return r.err or 1
    end
  end
  return 'XINFO STREAM gave no last-generated-id'
end

-- metaState reads the meta hash's status and jumlah_soal, refusing a missing
-- quiz (KUIS_NOTFOUND) and any shape the contract does not allow
-- (KUIS_CORRUPT). It returns status, question count, or nil, nil, error.
local function metaState(meta)
  local f = redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
  if f.err then
    return nil, nil, refusal(f, meta, 'not a hash')
  end
  local s, n = f[1], questions(f[2])
  if not s then
    if redis.call('EXISTS', meta) == 0 then
      return nil, nil, redis.error_reply('KUIS_NOTFOUND')
    end
    return nil, nil, corrupt(meta, 'field status is missing')
  end
  if s ~= 'berjalan' and s ~= 'selesai' then
    return nil, nil, corrupt(meta, 'field status is ' .. quote(s) .. ', want "berjalan" or "selesai"')
  end
  if not n then
    return nil, nil, corrupt(meta, 'field jumlah_soal is ' .. quote(f[2] or '') .. ', want a positive integer of at most ' ..
      maxQuestions)
  end
  return s, n, nil
end

-- gate builds the helpers that check a quiz's state and word refusals.
local function gate()
  local g = {}

  -- refuse words a refusal. Only KUIS_CORRUPT messages name a key: the Go
  -- side names the quiz and participant of every other refusal.
  function g.refuse(code, msg)
    if msg then
      return redis.error_reply(code .. ' ' .. msg)
    end
    return redis.error_reply(code)
  end

  -- permitted refuses with KUIS_FORBIDDEN unless the calling ACL user may run
  -- every command given (each a table: name, key, args...). Checking first
  -- means a refused script writes nothing. redis.acl_check_cmd exists from
  -- Redis 7 on; where it is missing (miniredis) the server's checks still apply.
  function g.permitted(...)
    if not redis.acl_check_cmd then
      return nil
    end
    for _, cmd in ipairs({...}) do
      if not redis.acl_check_cmd(unpack(cmd)) then
        return g.refuse('KUIS_FORBIDDEN', 'the ACL user may not run ' .. cmd[1])
      end
    end
    return nil
  end

  -- deletable is permitted for UNLINK of every key in keys.
  function g.deletable(keys)
    local checks = {}
    for i, key in ipairs(keys) do
      checks[i] = {'UNLINK', key}
    end
    return g.permitted(unpack(checks))
  end

  -- call runs cmd on key under pcall: a key of the wrong type becomes
  -- KUIS_CORRUPT saying it is what (refusal). It returns reply, nil or nil,
  -- error reply.
  function g.call(what, cmd, key, ...)
    local r = redis.pcall(cmd, key, ...)
    if type(r) == 'table' and r.err then
      return nil, refusal(r, key, what)
    end
    return r, nil
  end

  -- sizes reads ZCARD board, SCARD answers, XLEN log and, when given,
  -- ZCARD order, refusing a key of the wrong type (KUIS_CORRUPT). It returns
  -- their sum, or nil, error.
  function g.sizes(board, answers, log, order)
    local checks = {{board, 'ZCARD', 'not a sorted set'}, {answers, 'SCARD', 'not a set'}, {log, 'XLEN', 'not a stream'}}
    if order then
      table.insert(checks, {order, 'ZCARD', 'not a sorted set'})
    end
    local sum = 0
    for _, check in ipairs(checks) do
      local r = redis.pcall(check[2], check[1])
      if type(r) == 'table' and r.err then
        return nil, refusal(r, check[1], check[3])
      end
      sum = sum + r
    end
    return sum, nil
  end

  -- intact is permitted for the commands in checks, then metaState, then
  -- sizes: the quiz's status and question count, refusing a forbidden
  -- write, a missing quiz or any key of the wrong type. It returns status,
  -- question count, or nil, nil, error.
  function g.intact(checks, meta, board, answers, log, order)
    local s, n, _
    local err = g.permitted(unpack(checks))
    if not err then
      s, n, err = metaState(meta)
    end
    if not err then
      _, err = g.sizes(board, answers, log, order)
    end
    if err then
      return nil, nil, err
    end
    return s, n, nil
  end

  -- found refuses a quiz without meta (KUIS_NOTFOUND), or a meta key of the
  -- wrong type. It returns nil, or the error.
  function g.found(meta)
    local n = redis.pcall('HLEN', meta)
    if type(n) == 'table' and n.err then
      return refusal(n, meta, 'not a hash')
    end
    if n == 0 then
      return g.refuse('KUIS_NOTFOUND')
    end
    return nil
  end

  -- misplaced is the refusal of a member whose place in the order set (nil:
  -- none) does not agree with its board score.
  function g.misplaced(order, member, place, score)
    local count, p = 'no', tonumber(place)
    if p and p >= 0 and p < maxScore + 2 and p == math.floor(p) then
      count = whole(math.floor(p / unit))
    end
    return corrupt(order, 'member ' .. quote(member) .. ' is placed for ' .. count .. ' answers, and the board has ' ..
      whole(score))
  end

  -- ranking returns the sorted set a read orders the board by: the order set
  -- when time order is asked for and it holds exactly the board's members
  -- (a quiz older than the answer log has none), else the board itself.
  function g.ranking(board, order, bytime)
    if not bytime then
      return board, nil
    end
    local nb = redis.pcall('ZCARD', board)
    if type(nb) == 'table' then
      return nil, refusal(nb, board, 'not a sorted set')
    end
    local no = redis.pcall('ZCARD', order)
    if type(no) == 'table' then
      return nil, refusal(no, order, 'not a sorted set')
    end
    if nb == no then
      return order, nil
    end
    return board, nil
  end

  return g
end

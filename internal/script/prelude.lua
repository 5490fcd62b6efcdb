-- prelude.lua: what every script shares; script.go prepends it.
-- It defines functions only and runs nothing by itself.
--
-- Refusals are error replies whose first word is a code the Go side maps to
-- a sentinel error (errors.go's scriptCodes): KUIS_NOTFOUND, KUIS_FINISHED,
-- KUIS_RUNNING, KUIS_EXISTS, KUIS_QUESTION, KUIS_CORRUPT, KUIS_FORBIDDEN,
-- KUIS_BUSY.
--
-- Every function a script defines is built anew on every call, and that costs
-- the server measurable time on the hot path: the record script uses the
-- small functions below and never builds gate()'s helpers.

-- maxScore is the largest sound score, 2^53 - 2: the largest multiple of 10
-- a double holds exactly (leaderboard.go's maxScore is the same).
local maxScore = 9007199254740990

-- sound reports whether a ZSCORE reply (false for no member) is a score the
-- contract allows: a non-negative multiple of 10 of at most maxScore.
local function sound(score)
  if score == false then
    return true
  end
  local n = tonumber(score)
  return n ~= nil and n >= 0 and n <= maxScore and n % 10 == 0
end

-- int formats an integer exactly: '%d' where it is 64-bit, and cheaper for
-- the server than the floating-point '%.0f'; Lua's '%d' is a C long, 32-bit
-- on 32-bit builds of Redis.
local int = string.format('%d', 4398046511104) == '4398046511104' and '%d' or '%.0f'

-- unit is 2^42 ms (until the year 2109). A participant's place in the order
-- set is count * unit + (unit - 1 - ms), count their counted answers and ms
-- the server time of the latest, so that ZRANGE ... REV puts more points
-- first and, among equal points, the earlier time first; without a time (ms
-- 0) the place is count * unit, after every timed participant with as many.
-- ranking.go's orderPlace is the same.
local unit = 4398046511104
local function place(count, ms)
  local p = math.min(count, 2047) * unit
  if ms > 0 then
    p = p + unit - 1 - ms
  end
  return string.format(int, p)
end

-- agrees reports whether a place in the order set agrees with a board score
-- (both replies): the place's count of answers is the score's, 10 points
-- each. ranking.go's byPlace applies the same rule.
local function agrees(place, score)
  return score ~= false and math.floor(tonumber(place) / unit) == math.min(tonumber(score) / 10, 2047)
end

-- msOf is the time part of a stream entry ID.
local function msOf(id)
  return tonumber(string.match(id, '^%d+'))
end

-- answerOf returns the participant and question of a log entry ({id,
-- {field, value, ...}}, as XRANGE replies inside a script), or nil for an
-- entry that is not an answer.
local function answerOf(entry)
  local f, p, q = entry[2], nil, nil
  for j = 1, #f, 2 do
    if f[j] == 'peserta' then
      p = f[j + 1]
    elseif f[j] == 'soal' then
      q = f[j + 1]
    end
  end
  if p and q then
    return p, q
  end
  return nil
end

-- questions returns a meta hash's jumlah_soal as a number, or nil unless it is
-- a positive decimal integer of at most 15 digits without sign or leading
-- zeros (meta.go's decodeQuestions applies the same rule).
local function questions(n)
  if type(n) == 'string' and #n <= 15 and string.match(n, '^[1-9]%d*$') then
    return tonumber(n)
  end
  return nil
end

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

  -- call runs a command under pcall. A key of the wrong type (WRONGTYPE, which
  -- writes nothing) becomes KUIS_CORRUPT with the message what; any other
  -- error, such as an ACL refusal, is passed on as the server worded it, so the
  -- Go side maps it (ErrForbidden). It returns reply, nil or nil, error reply.
  function g.call(what, ...)
    local r = redis.pcall(...)
    if type(r) == 'table' and r.err then
      if string.sub(r.err, 1, 9) == 'WRONGTYPE' then
        return nil, g.refuse('KUIS_CORRUPT', what)
      end
      return nil, r
    end
    return r, nil
  end

  -- sizes reads ZCARD board, SCARD answers, XLEN log and, when given,
  -- ZCARD order, refusing a key of the wrong type (KUIS_CORRUPT). It returns
  -- their sum, or nil, error.
  function g.sizes(board, answers, log, order)
    local checks = {{board, 'ZCARD', ': not a sorted set'}, {answers, 'SCARD', ': not a set'},
      {log, 'XLEN', ': not a stream'}}
    if order then
      table.insert(checks, {order, 'ZCARD', ': not a sorted set'})
    end
    local sum = 0
    for _, check in ipairs(checks) do
      local n, err = g.call(check[1] .. check[3], check[2], check[1])
      if err then
        return nil, err
      end
      sum = sum + n
    end
    return sum, nil
  end

  -- status reads the meta hash's status and jumlah_soal, refusing a missing
  -- quiz (KUIS_NOTFOUND) and any shape the contract does not allow
  -- (KUIS_CORRUPT). It returns status, question count, or nil, nil, error.
  function g.status(meta)
    local f, err = g.call(meta .. ': not a hash', 'HMGET', meta, 'status', 'jumlah_soal')
    if err then
      return nil, nil, err
    end
    local s, n = f[1], questions(f[2])
    if not s then
      if redis.call('EXISTS', meta) == 0 then
        return nil, nil, g.refuse('KUIS_NOTFOUND')
      end
      return nil, nil, g.refuse('KUIS_CORRUPT', meta .. ': field status is missing')
    end
    if s ~= 'berjalan' and s ~= 'selesai' then
      return nil, nil, g.refuse('KUIS_CORRUPT', meta .. ': field status is ' .. string.format('%q', string.sub(s, 1, 64)))
    end
    if not n then
      return nil, nil, g.refuse('KUIS_CORRUPT', meta .. ': field jumlah_soal is not a positive integer')
    end
    return s, n, nil
  end

  -- intact is status after sizes: the quiz's status and question count,
  -- refusing a missing quiz or any key of the wrong type. It returns
  -- status, question count, or nil, nil, error.
  function g.intact(meta, board, answers, log, order)
    local s, n, err = g.status(meta)
    if err then
      return nil, nil, err
    end
    local _, err = g.sizes(board, answers, log, order)
    if err then
      return nil, nil, err
    end
    return s, n, nil
  end

  -- found refuses a quiz without meta (KUIS_NOTFOUND), or a meta key of the
  -- wrong type. It returns nil, or the error.
  function g.found(meta)
    local n, err = g.call(meta .. ': not a hash', 'HLEN', meta)
    if err then
      return err
    end
    if n == 0 then
      return g.refuse('KUIS_NOTFOUND')
    end
    return nil
  end

  -- misplaced is the refusal of a member whose place in the order set (nil:
  -- none) does not agree with its board score.
  function g.misplaced(order, member, place, score)
    return g.refuse('KUIS_CORRUPT', order .. ': member ' .. string.format('%q', string.sub(member, 1, 64)) ..
      ' is placed for ' .. whole(place and math.floor(tonumber(place) / unit) or 'no') .. ' answers, and the board has ' .. whole(score))
  end

  -- ranking returns the sorted set a read orders the board by: the order set
  -- when time order is asked for and it holds exactly the board's members
  -- (a quiz older than the answer log has none), else the board itself.
  function g.ranking(board, order, bytime)
    if not bytime then
      return board, nil
    end
    local nb, err = g.call(board .. ': not a sorted set', 'ZCARD', board)
    if err then
      return nil, err
    end
    local no, err = g.call(order .. ': not a sorted set', 'ZCARD', order)
    if err then
      return nil, err
    end
    if nb == no then
      return order, nil
    end
    return board, nil
  end

  return g
end

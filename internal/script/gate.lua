-- gate.lua: the shared prelude of the scripts that touch a quiz's meta.
-- script.go prepends it to create, finish, record, record_answer, recap and
-- purge_quiz. It defines functions only and runs nothing by itself.
--
-- Refusals are error replies whose first word is a code the Go side maps to
-- a sentinel error (errors.go): KUIS_NOTFOUND, KUIS_FINISHED, KUIS_RUNNING,
-- KUIS_EXISTS, KUIS_QUESTION, KUIS_CORRUPT, KUIS_FORBIDDEN.

local function refuse(code, msg)
  return redis.error_reply(code .. ' ' .. msg)
end

-- permitted refuses with KUIS_FORBIDDEN unless the calling ACL user may run
-- every command given (each a table: name, key, args...). Checking first means
-- a refused script writes nothing. redis.acl_check_cmd exists from Redis 7 on;
-- where it is missing (miniredis) the server's own checks still apply.
local function permitted(...)
  if not redis.acl_check_cmd then
    return nil
  end
  for _, cmd in ipairs({...}) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return refuse('KUIS_FORBIDDEN', 'the ACL user may not run ' .. cmd[1] .. ' on ' .. cmd[2])
    end
  end
  return nil
end

-- call runs a command under pcall. A key of the wrong type (WRONGTYPE, which
-- writes nothing) becomes KUIS_CORRUPT with the message what; any other error,
-- such as an ACL refusal, is passed on as the server worded it, so the Go side
-- maps it (ErrForbidden). It returns reply, nil or nil, error reply.
local function call(what, ...)
  local r = redis.pcall(...)
  if type(r) == 'table' and r.err then
    if string.sub(r.err, 1, 9) == 'WRONGTYPE' then
      return nil, refuse('KUIS_CORRUPT', what)
    end
    return nil, r
  end
  return r, nil
end

-- status reads the meta hash's status and jumlah_soal, refusing a missing
-- quiz (KUIS_NOTFOUND) and any shape the contract does not allow
-- (KUIS_CORRUPT). It returns status, question count, or nil, error reply.
local function status(meta)
  local f, err = call(meta .. ' is not a hash', 'HMGET', meta, 'status', 'jumlah_soal')
  if err then
    return nil, nil, err
  end
  local s, n = f[1], f[2]
  if not s then
    if redis.call('EXISTS', meta) == 0 then
      return nil, nil, refuse('KUIS_NOTFOUND', meta .. ' does not exist')
    end
    return nil, nil, refuse('KUIS_CORRUPT', meta .. ' has no field status')
  end
  if s ~= 'berjalan' and s ~= 'selesai' then
    return nil, nil, refuse('KUIS_CORRUPT', meta .. ' field status is ' .. string.format('%q', s))
  end
  if not n or not string.match(n, '^[1-9]%d*$') then
    return nil, nil, refuse('KUIS_CORRUPT', meta .. ' field jumlah_soal is not a positive integer')
  end
  return s, tonumber(n), nil
end

-- running is status for the write paths: only berjalan passes.
local function running(meta)
  local s, n, err = status(meta)
  if err then
    return nil, err
  end
  if s == 'selesai' then
    return nil, refuse('KUIS_FINISHED', meta .. ' status is selesai')
  end
  return n, nil
end

-- zincrby adds 10 points, reporting a board of the wrong type as KUIS_CORRUPT.
-- A current score that is not a non-negative
-- multiple of 10 (at most 2^53 - 10, so the sum stays exact) is KUIS_CORRUPT
-- too, checked before the write: a refusal writes nothing, and -10 + 10 must
-- not turn a corrupt score into a plausible one.
local function zincrby(board, participant)
  local notzset = board .. ' is not a sorted set'
  local cur, err = call(notzset, 'ZSCORE', board, participant)
  if err then
    return nil, err
  end
  if cur then
    local n = tonumber(cur)
    if not n or n ~= n or n < 0 or n > 9007199254740982 or n % 10 ~= 0 then
      return nil, refuse('KUIS_CORRUPT', board .. ' member ' .. string.format('%q', participant) ..
        ' has score ' .. cur .. ', not a non-negative multiple of 10')
    end
  end
  return call(notzset, 'ZINCRBY', board, 10, participant)
end

-- gate.lua: the shared prelude of the scripts that touch a quiz's meta.
-- script.go prepends it to create, finish, record, record_answer and
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

-- status reads the meta hash's status and jumlah_soal, refusing a missing
-- quiz (KUIS_NOTFOUND) and any shape the contract does not allow
-- (KUIS_CORRUPT). It returns status, question count, or nil, error reply.
local function status(meta)
  local f = redis.pcall('HMGET', meta, 'status', 'jumlah_soal')
  if f.err then
    return nil, nil, refuse('KUIS_CORRUPT', meta .. ' is not a hash')
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

-- zincrby adds 10 points, reporting a board of the wrong type as KUIS_CORRUPT
-- (WRONGTYPE writes nothing). Any other error is passed on as it is.
local function zincrby(board, participant)
  local s = redis.pcall('ZINCRBY', board, 10, participant)
  if type(s) == 'table' and s.err then
    if string.sub(s.err, 1, 9) == 'WRONGTYPE' then
      return nil, refuse('KUIS_CORRUPT', board .. ' is not a sorted set')
    end
    return nil, s
  end
  return s, nil
end

-- Sliding window counter (algorithms.SlidingCounter). KEYS[1]: a hash, w = the
-- current window's index, p = units in the previous window, c = in the current.
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 limit, 4 period_us, 5 ttl ms, 6 mode
-- ('allow'; 'check': the same answer, nothing written; 'level').
-- Returns {allowed, the estimate × period, retry_us (−1: never), reset_us, 0}.
local now = tonumber(ARGV[1])
local cost, limit, p = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local w = floordiv(now, p)
local s = redis.call('HMGET', KEYS[1], 'w', 'p', 'c')
local sw, sp, sc = num(s[1], w), num(s[2], 0), num(s[3], 0)
local elapsed = 0
if w >= sw then
  if w == sw + 1 then sw, sp, sc = w, sc, 0
  elseif w > sw + 1 then sw, sp, sc = w, 0, 0 end
  elapsed = now - w * p
end -- an earlier window (time went back): the start of the stored one
-- ahead: how far that start is ahead of now; waits count it from now
local ahead = math.max(0, sw * p - now)

local weighted = sp * (p - elapsed) + sc * p
if ARGV[6] == 'level' then return {0, weighted, 0, 0, 0} end

local allowed, retry = 0, 0
if weighted + cost * p <= limit * p then
  sc, weighted, allowed = sc + cost, weighted + cost * p, 1
elseif cost > limit then
  retry = -1
else
  -- the smallest e with prev × (p − e) ≤ room × p
  local function fade(prev, room)
    if prev == 0 then return 0 end
    return p - floordiv(room * p, prev)
  end
  local room = limit - sc - cost
  if room >= 0 then retry = ahead + fade(sp, room) - elapsed -- denied: fade > elapsed
  else retry = ahead + p - elapsed + fade(sc, limit - cost) end
end
if ARGV[6] ~= 'check' then
  redis.call('HSET', KEYS[1], 'w', int(sw), 'p', int(sp), 'c', int(sc))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
local reset = 0
if sc > 0 then reset = ahead + 2 * p - elapsed elseif sp > 0 then reset = ahead + p - elapsed end
return {allowed, weighted, retry, reset, 0}

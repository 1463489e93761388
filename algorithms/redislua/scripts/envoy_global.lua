-- Envoy's global rate limit service (algorithms.EnvoyGlobal): a window's count,
-- INCRBY the request's cost whatever the answer. KEYS[1]: a hash, w and n = the key's
-- latest window (its start in Unix seconds) and its count, pw and pn = the window
-- before it a request counted in and its count.
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 limit (requests_per_unit),
-- 4 divider_s (the unit), 5 origin_unix (the Unix second the origin stands for),
-- 6 shadow (1: shadow_mode), 7 ttl ms, 8 mode ('allow'; 'check': the same answer,
-- nothing written; 'level').
-- Returns {allowed, remaining, retry_us (−1: never), reset_us, 0, over}: over is 1 when
-- the count passed the limit (allowed then under shadow_mode only).
local now, cost, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local div, origin, shadow = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[6] == '1'
local w = floordiv(origin + floordiv(now, 1000000), div) * div
local s = redis.call('HMGET', KEYS[1], 'w', 'n', 'pw', 'pn')
local sw, sn = num(s[1], w), num(s[2], 0)
local pw, pn = num(s[3], nil), num(s[4], 0)

if ARGV[8] == 'level' then
  if w == sw then return {0, sn, 0, 0, 0, 0} end
  if w == pw then return {0, pn, 0, 0, 0, 0} end
  return {0, 0, 0, 0, 0, 0}
end

-- the count of window w, as the service's key for it would be found
local count
if w == sw then
  count = sn
elseif w > sw then
  pw, pn, sw, sn, count = sw, sn, w, 0, 0
else
  if w ~= pw then pw, pn = w, 0 end
  count = pn
end
count = count + cost
if w == sw then sn = count else pn = count end

local left = (w + div - origin) * 1000000 - now
local allowed, remaining, retry, over = 0, 0, 0, 0
if count <= limit then
  allowed, remaining = 1, limit - count
elseif shadow then
  allowed, over = 1, 1
elseif cost > limit then
  retry, over = -1, 1
elseif sw == w + div and sn + cost > limit then
  retry, over = left + div * 1000000, 1 -- a clock ahead filled the next window
else
  retry, over = left, 1
end
if ARGV[8] ~= 'check' then
  if pw then
    redis.call('HSET', KEYS[1], 'w', int(sw), 'n', int(sn), 'pw', int(pw), 'pn', int(pn))
  else
    redis.call('HSET', KEYS[1], 'w', int(sw), 'n', int(sn))
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
end
return {allowed, remaining, retry, left, 0, over}

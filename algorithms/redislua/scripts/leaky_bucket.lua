-- Leaky bucket (algorithms.LeakyBucket). KEYS[1]: a hash, l = level in credits,
-- t = last drain in µs.
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 unit, 4 per_micro, 5 capacity, 6 fill_us,
-- 7 queue (1: delay accepted requests), 8 ttl ms, 9 mode ('allow'; 'check': the same answer,
-- nothing written; 'level').
-- Returns {allowed, capacity − level, retry_us (−1: never), reset_us, delay_us}.
local now = tonumber(ARGV[1])
local cost, unit, per_micro = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local capacity, fill_us = tonumber(ARGV[5]), tonumber(ARGV[6])
local s = redis.call('HMGET', KEYS[1], 'l', 't')
local level, last = num(s[1], 0), num(s[2], now)

local elapsed = now - last
if elapsed > 0 and level > 0 then
  if elapsed >= fill_us then level = 0
  else level = math.max(0, level - elapsed * per_micro) end
end
if ARGV[9] == 'level' then return {0, level, 0, 0, 0} end

-- a request stamped before t (a clock behind) sees the level as of t, and
-- draining resumes only at t: every wait counts the time until then from now
local ahead = math.max(0, last - now)
local need = cost * unit
local allowed, retry, delay, reset = 0, 0, 0, 0
if level + need <= capacity then
  allowed = 1
  if ARGV[7] == '1' and level > 0 then delay = ahead + wait(level, per_micro) end
  level = level + need
elseif need > capacity then
  retry = -1
else
  retry = ahead + wait(level + need - capacity, per_micro)
end
if level > 0 then reset = ahead + wait(level, per_micro) end
if ARGV[9] ~= 'check' then
  redis.call('HSET', KEYS[1], 'l', int(level), 't', int(math.max(now, last)))
  redis.call('PEXPIRE', KEYS[1], ARGV[8])
end
return {allowed, capacity - level, retry, reset, delay}

-- Leaky bucket (algorithms.LeakyBucket). KEYS[1]: a hash, l = level in credits,
-- t = last drain in µs.
-- ARGV: 1 clock, 2 origin, 3 cost, 4 unit, 5 per_micro, 6 capacity, 7 fill_us,
-- 8 queue (1: delay accepted requests), 9 ttl ms, 10 mode.
-- Returns {allowed, capacity − level, retry_us (−1: never), reset_us, delay_us}.
local now = now_us(ARGV[1], ARGV[2])
local cost, unit, per_micro = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local capacity, fill_us = tonumber(ARGV[6]), tonumber(ARGV[7])
local s = redis.call('HMGET', KEYS[1], 'l', 't')
local level, last = num(s[1], 0), num(s[2], now)

local elapsed = now - last
if elapsed > 0 and level > 0 then
  if elapsed >= fill_us then level = 0
  else level = math.max(0, level - elapsed * per_micro) end
end
if ARGV[10] == 'level' then return {0, level, 0, 0, 0} end

local need = cost * unit
local allowed, retry, delay = 0, 0, 0
if level + need <= capacity then
  allowed = 1
  if ARGV[8] == '1' then delay = wait(level, per_micro) end
  level = level + need
elseif need > capacity then
  retry = -1
else
  retry = wait(level + need - capacity, per_micro)
end
redis.call('HSET', KEYS[1], 'l', int(level), 't', int(math.max(now, last)))
redis.call('PEXPIRE', KEYS[1], ARGV[9])
return {allowed, capacity - level, retry, wait(level, per_micro), delay}

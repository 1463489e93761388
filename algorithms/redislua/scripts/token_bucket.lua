-- Token bucket (algorithms.TokenBucket). KEYS[1]: a hash, c = balance in credits,
-- t = last refill in µs.
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 unit, 4 per_micro, 5 capacity, 6 floor
-- (−reservations), 7 fill_us, 8 monotonic (1: store max(now, t)), 9 ttl ms,
-- 10 mode ('allow'; 'check': the same answer, nothing written; 'level').
-- Returns {allowed, balance, retry_us (−1: never), reset_us, delay_us}.
local now = tonumber(ARGV[1])
local cost, unit, per_micro = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local capacity, floor_, fill_us = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local s = redis.call('HMGET', KEYS[1], 'c', 't')
local balance, last = num(s[1], capacity), num(s[2], now)

local elapsed = now - last
if elapsed > 0 and balance < capacity then
  if elapsed >= fill_us then balance = capacity
  else balance = math.min(capacity, balance + elapsed * per_micro) end
end
if ARGV[10] == 'level' then return {0, balance, 0, 0, 0} end

local stored = now
if ARGV[8] == '1' and last > now then stored = last end
local need = cost * unit
local allowed, retry, delay = 0, 0, 0
if balance - need >= floor_ then
  balance = balance - need
  allowed, delay = 1, wait(-balance, per_micro)
elseif need + floor_ > capacity then
  retry = -1
else
  retry = wait(need + floor_ - balance, per_micro)
end
if ARGV[10] ~= 'check' then
  redis.call('HSET', KEYS[1], 'c', int(balance), 't', int(stored))
  redis.call('PEXPIRE', KEYS[1], ARGV[9])
end
return {allowed, balance, retry, wait(capacity - balance, per_micro), delay}

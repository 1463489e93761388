-- Token bucket (algorithms.TokenBucket). KEYS[1]: a hash, c = balance in credits,
-- t = last refill in µs.
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 unit, 4 per_micro, 5 capacity, 6 floor
-- (−reservations), 7 fill_us, 8 monotonic (1: store max(now, t); 0: an accepted request's now), 9 ttl ms,
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

-- a request stamped before t (a clock behind) sees the balance as of t, and
-- refill resumes only at t: every wait counts the time until then from now
local ahead = math.max(0, last - now)
local need = cost * unit
local allowed, retry, delay, reset = 0, 0, 0, 0
if need > capacity then
  retry = -1 -- never: the bucket never holds it, reservations or not
elseif balance - need >= floor_ then
  balance = balance - need
  allowed = 1
  if ARGV[8] ~= '1' then ahead = 0 end -- t moves back to now, and refill with it
  if balance < 0 then delay = ahead + wait(-balance, per_micro) end
else
  retry = ahead + wait(need + floor_ - balance, per_micro)
end
if balance < capacity then reset = ahead + wait(capacity - balance, per_micro) end
-- an accepted request stores now (fix off, as x/time/rate) or max(now, t) (fix
-- on); a refused one never moves t back (fix on: it may store the refill up to a
-- later now)
local write = allowed == 1 or (ARGV[8] == '1' and now > last)
if ARGV[10] ~= 'check' and write then
  local stored = now
  if ARGV[8] == '1' then stored = math.max(now, last) end
  redis.call('HSET', KEYS[1], 'c', int(balance), 't', int(stored))
  redis.call('PEXPIRE', KEYS[1], ARGV[9])
end
return {allowed, balance, retry, reset, delay}

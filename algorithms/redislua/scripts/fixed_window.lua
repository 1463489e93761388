-- Fixed window (algorithms.FixedWindow). KEYS[1]: a hash, w = window index,
-- n = units accepted in it, a = its allowance (limit plus rollover).
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 limit, 4 period_us, 5 rollover, 6 offset_us
-- (the key's window start), 7 ttl ms, 8 mode ('allow'; 'check': the same answer, nothing
-- written; 'level').
-- Returns {allowed, allowance − count, retry_us (−1: never), reset_us, 0, allowance}.
local now = tonumber(ARGV[1])
local cost, limit, period = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local rollover, offset = tonumber(ARGV[5]), tonumber(ARGV[6])
local w = floordiv(now - offset, period)
local s = redis.call('HMGET', KEYS[1], 'w', 'n', 'a')
local sw, sn, sa = num(s[1], w), num(s[2], 0), num(s[3], limit + rollover)

if w > sw then -- roll, carrying unused units; idle windows carry their whole allowance
  local carry = math.min(rollover, sa - sn)
  local idle = w - sw - 1
  if idle > 0 and carry < rollover then
    if idle >= ceildiv(rollover - carry, limit) then carry = rollover
    else carry = math.min(rollover, carry + idle * limit) end
  end
  sw, sn, sa = w, 0, limit + carry
end
if ARGV[8] == 'level' then
  if s[1] then return {0, sn, 0, 0, 0, sa} end
  return {0, 0, 0, 0, 0, sa}
end

local finish = (sw + 1) * period + offset
local allowed, retry = 0, 0
if sn + cost <= sa then
  sn, allowed = sn + cost, 1
elseif cost > limit + rollover then
  retry = -1
else
  local carry = math.min(rollover, sa - sn)
  local windows = 0
  if cost - limit - carry > 0 then windows = ceildiv(cost - limit - carry, limit) end
  retry = finish + windows * period - now
end
if ARGV[8] ~= 'check' then
  redis.call('HSET', KEYS[1], 'w', int(sw), 'n', int(sn), 'a', int(sa))
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
end
return {allowed, sa - sn, retry, finish - now, 0, sa}

-- Sliding log (algorithms.SlidingLog). KEYS[1]: a sorted set of accepted requests,
-- member "seq:cost" (seq zero-padded, so ties keep their order), score = time in µs;
-- KEYS[2]: a hash, sum = units in the log, seq = the last sequence number.
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 limit, 4 period_us, 5 ttl ms, 6 mode
-- ('allow'; 'check': the same answer, nothing written or expired; 'level').
-- Returns {allowed, limit − sum, retry_us (−1: never), reset_us, 0}.
local now = tonumber(ARGV[1])
local asked = now -- the request's own time: waits are measured from it
local cost, limit, period = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local check = ARGV[6] == 'check'
local function cost_of(member) return tonumber(string.match(member, ':(%d+)$')) end

local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
-- time never goes back in a log: a request stamped before the newest entry is
-- judged (and logged) at its time
if newest[2] then now = math.max(now, tonumber(newest[2])) end
local sum = num(redis.call('HGET', KEYS[2], 'sum'), 0)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', int(now - period))
for _, m in ipairs(expired) do sum = sum - cost_of(m) end
if ARGV[6] == 'level' then return {0, sum, 0, 0, 0} end
if #expired > 0 and not check then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(now - period)) end

local allowed, retry = 0, 0
if sum + cost <= limit then
  if check then return {1, limit - sum - cost, 0, now + period - asked, 0} end -- its entry would be the newest
  local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
  redis.call('ZADD', KEYS[1], int(now), string.format('%016d:%d', seq, cost))
  sum, allowed = sum + cost, 1
elseif cost > limit then
  retry = -1
else
  local excess = sum + cost - limit
  local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. int(now - period), '+inf', 'WITHSCORES')
  for i = 1, #live, 2 do
    excess = excess - cost_of(live[i])
    if excess <= 0 then retry = tonumber(live[i + 1]) + period - asked; break end
  end
end
local reset = 0
if check then
  if newest[2] and tonumber(newest[2]) > now - period then reset = tonumber(newest[2]) + period - asked end
  return {0, limit - sum, retry, reset, 0}
end
redis.call('HSET', KEYS[2], 'sum', int(sum))
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then
  reset = tonumber(last[2]) + period - asked
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {allowed, limit - sum, retry, reset, 0}

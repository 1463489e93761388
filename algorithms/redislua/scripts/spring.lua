-- Spring Cloud Gateway's RedisRateLimiter (algorithms.Spring): the steps of its
-- request_rate_limiter.lua (spring-cloud-gateway at 5227205c), in its own
-- arithmetic. KEYS[1]: the tokens, KEYS[2]: the timestamp in whole seconds; both
-- written with Spring's ttl = floor(capacity / rate * 2) s, and only when it is
-- above 0 (with replenishRate > 2 × burstCapacity nothing is ever stored).
--
-- Called as ratelab calls every script —
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 replenishRate, 4 burstCapacity,
-- 5 requestedTokens per unit of cost, 6 ttl ms, 7 mode ('allow'; 'check': the same
-- answer, nothing written; 'level') — now is floored to the second, as Redis TIME[1]
-- is, the requested tokens are cost × ARGV[5], and the keys expire after ARGV[6] ms
-- of the wall clock (Spring's ttl counts seconds of the run's virtual clock, on
-- which an expired key changes no decision: see algorithms.Spring).
-- Returns {allowed, tokens left, retry_us (−1: never), reset_us, 0}.
--
-- Called as Spring calls it — ARGV: 1 replenishRate, 2 burstCapacity, 3 now in
-- seconds ('' for Redis TIME), 4 requested — it is Spring's script: SETEX with
-- Spring's ttl, and returns {allowed, tokens left}.
local tokens_key, timestamp_key = KEYS[1], KEYS[2]
local spring = ARGV[5] == nil
local rate, capacity, now, requested, mode
if spring then
  redis.replicate_commands() -- TIME before a write, as Spring's script allows itself
  rate, capacity, requested = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
  now = tonumber(ARGV[3]) or redis.call('TIME')[1]
  mode = 'allow'
else
  now = floordiv(tonumber(ARGV[1]), 1000000)
  rate, capacity = tonumber(ARGV[3]), tonumber(ARGV[4])
  requested = tonumber(ARGV[2]) * tonumber(ARGV[5])
  mode = ARGV[7]
end

local fill_time = capacity / rate
local ttl = math.floor(fill_time * 2)

local last_tokens = tonumber(redis.call('GET', tokens_key)) or capacity
local last_refreshed = tonumber(redis.call('GET', timestamp_key)) or 0

local delta = math.max(0, now - last_refreshed)
local filled_tokens = math.min(capacity, last_tokens + (delta * rate))
if mode == 'level' then return {0, filled_tokens, 0, 0, 0} end
local allowed = filled_tokens >= requested
local new_tokens = filled_tokens
if allowed then new_tokens = filled_tokens - requested end

if ttl > 0 and mode ~= 'check' then
  if spring then
    redis.call('SETEX', tokens_key, ttl, new_tokens)
    redis.call('SETEX', timestamp_key, ttl, now)
  else
    redis.call('SET', tokens_key, int(new_tokens), 'PX', ARGV[6])
    redis.call('SET', timestamp_key, int(now), 'PX', ARGV[6])
  end
end
if spring then
  if allowed then return {1, new_tokens} end
  return {0, new_tokens}
end

-- until the whole second at which the tokens stored now reach want, in µs
local function until_(want)
  return (now + ceildiv(want - new_tokens, rate)) * 1000000 - tonumber(ARGV[1])
end
local retry, reset = 0, 0
if allowed then
  allowed = 1
else
  allowed = 0
  if requested > capacity then retry = -1 else retry = until_(requested) end
end
if ttl > 0 and new_tokens < capacity then reset = until_(capacity) end
return {allowed, new_tokens, retry, reset, 0}

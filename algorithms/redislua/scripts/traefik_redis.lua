-- Traefik's rateLimit middleware in its Redis mode (algorithms.TraefikRedis):
-- the steps of AllowTokenBucketRaw (traefik/traefik at fd5a576d,
-- pkg/middlewares/ratelimiter/lua.go), in its doubles, on its hash {last, tokens}
-- (last in Unix µs of the caller's clock), with the key's expiry on the caller's
-- clock kept in a third field, expires (ms from the run's origin), as EXPIRE ttl
-- would drop the key on Redis's clock.
--
-- ARGV: 1 now (µs from the run's origin), 2 cost (unused: one token a request),
-- 3 the rate per µs (a double), 4 burst, 5 Traefik's ttl (s), 6 maxDelay in whole
-- µs, 7 maxDelay in ns, 8 the origin's Unix µs, 9 the key's expiry on the
-- server (ms), 10 mode ('allow'; 'check': the same answer, nothing written;
-- 'level').
-- Returns {allowed (Traefik's Go verdict, delay ≤ maxDelay in ns), delay (ns, as
-- Traefik's Go reads the script's tostring(wait)), the tokens left as mantissa ×
-- 2^53 and exponent (math.frexp, so a double crosses exactly)}; 'level': {0, 0,
-- the tokens refilled to now as mantissa and exponent}.
local key = KEYS[1]
local now = tonumber(ARGV[1])
local limit, burst, ttl, max_delay = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local max_delay_ns = tonumber(ARGV[7])
local t = tonumber(ARGV[8]) + now
local now_ms = floordiv(now, 1000)
local mode = ARGV[10]

-- a double as two integers Redis can return: m × 2^53 and e, x = m × 2^(e − 53)
local function bits(x)
  local m, e = math.frexp(x)
  return m * 9007199254740992, e
end

local last, tokens = 0, 0
local h = redis.call('HMGET', key, 'last', 'tokens', 'expires')
if h[1] and now_ms <= tonumber(h[3]) then
  last, tokens = tonumber(h[1]), tonumber(h[2])
end

if t < last then
  last = t
end
local elapsed = t - last
local delta = limit * elapsed
tokens = tokens + delta
tokens = math.min(tokens, burst)
if mode == 'level' then
  local m, e = bits(tokens)
  return {0, 0, m, e}
end
tokens = tokens - 1

local wait_duration = 0
if tokens < 0 then
  wait_duration = (tokens * -1) / limit
  if wait_duration > max_delay then
    tokens = tokens + 1
    tokens = math.min(tokens, burst)
  end
end

local expires = now_ms + ttl * 1000
if mode ~= 'check' then
  redis.call('HSET', key, 'last', int(t), 'tokens', string.format('%.17g', tokens), 'expires', int(expires))
  redis.call('PEXPIRE', key, ARGV[9])
end

-- Traefik's Go: ParseFloat(tostring(wait)), time.Duration(delay * 1µs)
local delay = math.floor(tonumber(tostring(wait_duration)) * 1000)
local m, e = bits(tokens)
if delay > max_delay_ns then return {0, delay, m, e} end
return {1, delay, m, e}

-- GCRA (algorithms.GCRA). KEYS[1]: a string, the theoretical arrival time in
-- scaled time (µs × per_micro).
-- ARGV: 1 now (µs from the run's origin), 2 cost, 3 unit, 4 per_micro, 5 capacity, 6 ttl ms,
-- 7 mode ('allow'; 'check': the same answer, nothing written; 'level').
-- A refused request writes nothing.
-- Returns {allowed, remaining credits (>= 0), retry_us (−1: never), reset_us, 0}.
local now = tonumber(ARGV[1])
local cost, unit, per_micro, capacity = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local now_s = now * per_micro
local stored = num(redis.call('GET', KEYS[1]), now_s)
if ARGV[7] == 'level' then return {0, math.max(0, capacity - math.max(0, stored - now_s)), 0, 0, 0} end

local tat = math.max(stored, now_s)
local new_tat = tat + cost * unit
local allow_at = new_tat - capacity
local allowed, retry = 0, 0
if now_s >= allow_at then
  allowed, tat = 1, new_tat
  if ARGV[7] ~= 'check' then redis.call('SET', KEYS[1], int(new_tat), 'PX', ARGV[6]) end
elseif cost * unit > capacity then
  retry = -1
else
  retry = wait(allow_at - now_s, per_micro)
end
-- a request stamped more than a burst before tat: 0 left, never less
return {allowed, math.max(0, capacity - (tat - now_s)), retry, wait(tat - now_s, per_micro), 0}

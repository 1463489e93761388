-- Prepended to every ratelab script. Redis Lua numbers are doubles, exact for
-- integers below 2^53; ratelab's policies are validated to keep every value here
-- below that, so these steps are the same integer arithmetic as the Go limiters.

-- wait: µs until deficit credits are refilled (or drained) at per_micro a µs,
-- rounded up; 0 when nothing is missing.
local function wait(deficit, per_micro)
  if deficit <= 0 then return 0 end
  return math.floor((deficit + per_micro - 1) / per_micro)
end

-- floordiv and ceildiv round towards minus and plus infinity.
local function floordiv(a, b) return math.floor(a / b) end
local function ceildiv(a, b) return -math.floor(-a / b) end

-- int: an integer as exact decimal text (tostring keeps only 14 digits).
local function int(x) return string.format('%d', x) end

-- num: a stored field as a number, or the default when the key has none.
local function num(v, default)
  if v then return tonumber(v) end
  return default
end

-- All or nothing (algorithms.ModeAll): several limits decided at once, in one
-- script, so either every limit consumes or none does. AllOrNothingScript puts
-- this after the shared prelude and every algorithm's own script, each wrapped as
-- algorithms[name] = function(KEYS, ARGV) … end, so each limit runs exactly the
-- steps its own script makes.
-- ARGV: 1 n (the limits), then per limit: its script's name, how many keys it
-- takes, how many arguments, and the arguments (its last is the mode, replaced
-- here). KEYS: every limit's keys, in order. On a Redis Cluster they must all hash
-- to one slot.
-- First every limit is asked in its 'check' mode (nothing written); only when all
-- would allow is each asked again in 'allow' mode, and then each allows, since
-- nothing else runs in between. Returns, per limit, the length of its reply and
-- the reply: the 'allow' replies when all allowed, else the 'check' replies.
local n = tonumber(ARGV[1])
local calls = {}
local k, a = 1, 2
for i = 1, n do
  local name, nkeys, nargs = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local keys, args = {}, {}
  for j = 1, nkeys do keys[j] = KEYS[k]; k = k + 1 end
  for j = 1, nargs do args[j] = ARGV[a + 2 + j] end
  a = a + 3 + nargs
  calls[i] = {algorithms[name], keys, args}
end

local replies, all = {}, true
for i, c in ipairs(calls) do
  c[3][#c[3]] = 'check'
  replies[i] = c[1](c[2], c[3])
  if replies[i][1] ~= 1 then all = false end
end
if all then
  for i, c in ipairs(calls) do
    c[3][#c[3]] = 'allow'
    replies[i] = c[1](c[2], c[3])
  end
end
local out = {}
for _, r in ipairs(replies) do
  out[#out + 1] = #r
  for _, v in ipairs(r) do out[#out + 1] = v end
end
return out

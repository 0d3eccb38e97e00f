-- wrk script: each connection is a user who requests the given paths in turn
-- (arguments after --) and pauses between requests (THINK_MS, default 500-1500 ms).
local paths = {}
local low, high = 500, 1500

init = function(args)
  for i, path in ipairs(args) do paths[i] = path end
  local think = os.getenv("THINK_MS")
  if think then low, high = string.match(think, "(%d+)-(%d+)") end
  math.randomseed(os.time() + #tostring({}))
end

local n = 0
request = function()
  n = n % #paths + 1
  return wrk.format("GET", paths[n])
end

delay = function()
  if tonumber(high) == 0 then return 0 end
  return math.random(tonumber(low), tonumber(high))
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "JSON {\"requests\": %d, \"seconds\": %.1f, \"rps\": %.1f, \"p50_ms\": %.1f, \"p90_ms\": %.1f, \"p99_ms\": %.1f, \"max_ms\": %.1f, \"connect_errors\": %d, \"read_errors\": %d, \"write_errors\": %d, \"status_errors\": %d, \"timeouts\": %d}\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    e.connect, e.read, e.write, e.status, e.timeout))
end

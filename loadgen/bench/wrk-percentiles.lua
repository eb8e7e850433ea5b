-- wrk-percentiles.lua — for bench/floor.sh: wrk's latency percentiles in µs and its failed
-- requests on one line ("floor P50 P90 P99 ERRORS"), instead of its rounded human table.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("floor %d %d %d %d\n", latency:percentile(50), latency:percentile(90),
    latency:percentile(99), e.connect + e.read + e.write + e.status + e.timeout))
end

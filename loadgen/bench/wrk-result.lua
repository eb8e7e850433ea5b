-- wrk-result.lua — for bench/floor.sh and bench/efficiency.sh: wrk's result as one JSON line
-- (requests, failed requests, latency percentiles in µs) instead of its rounded human table.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":{"total":%d},"errors":%d,"p50":%d,"p90":%d,"p99":%d}\n', summary.requests,
    e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end

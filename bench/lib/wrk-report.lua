-- What bench/lib/wrk.ts reads from a wrk run: one JSON line on stdout after wrk's own report.
-- No response() hook: defining one makes wrk hand every response's headers and body to Lua, a
-- cost on the load generator that these runs exist to avoid. wrk itself counts responses whose
-- status is not 2xx or 3xx (errors.status); latencies are wrk's, in microseconds.

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\nNIGHTGATE-BENCH {"requests":%d,"durationUs":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"timeouts":%d,' ..
    '"statusErrors":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d,"meanUs":%.3f}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end

-- What bench/lib/wrk.ts reads from a wrk run: one JSON line on stdout after wrk's own report.
-- Statuses are counted per code in each wrk thread (wrk itself only counts "not 2xx or 3xx").
-- Latencies are wrk's, in microseconds.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local merged = {}
  for _, thread in ipairs(threads) do
    for code, n in pairs(thread:get("statuses") or {}) do
      merged[code] = (merged[code] or 0) + n
    end
  end
  local parts = {}
  for code, n in pairs(merged) do
    table.insert(parts, string.format('"%d":%d', code, n))
  end
  local e = summary.errors
  io.write(string.format(
    '\nNIGHTGATE-BENCH {"requests":%d,"durationUs":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"timeouts":%d,' ..
    '"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d,"meanUs":%.3f,"statuses":{%s}}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
    table.concat(parts, ",")))
end

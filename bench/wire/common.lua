-- Shared by the wire scripts: every request is a POST of DynamoDB JSON with
-- the target operation and a (dummy) SigV4 header, which both servers accept;
-- each wrk thread gets its own number (key offsets of writes), and the run
-- ends with one line run.sh reads: requests/s, p50, p99, p99.9 (us), errors.
local threads = {}
function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end
function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read +
                 summary.errors.write + summary.errors.timeout
  io.write(string.format("STATS %.1f %d %d %d %d\n", summary.requests / (summary.duration / 1e6),
                         latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
                         errors))
end
return function(operation)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
  wrk.headers["X-Amz-Target"] = "DynamoDB_20120810." .. operation
  wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"
  wrk.headers["X-Amz-Date"] = "20261130T000000Z"
end

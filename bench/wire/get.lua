-- GetItem of the 10,000 readings run.sh loads before the measured runs.
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.GetItem"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"
wrk.headers["X-Amz-Date"] = "20261130T000000Z"
request = function()
  n = n % 10000 + 1
  local body = string.format('{"TableName":"Telemetry","Key":{"vehicleId":{"S":"VEH#V-%04d"},"recordedAt":{"S":"TS#%09d"}}}', n % 2000, n)
  return wrk.format(nil, "/", nil, body)
end
response = function(status, headers, body)
  -- A miss would be a cheaper request than the hit being measured.
  if status == 200 and not string.find(body, '"Item"', 1, true) then
    io.write("GetItem miss\n")
  end
end

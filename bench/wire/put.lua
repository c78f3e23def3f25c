-- PutItem of fleet readings, a new key per request (shared by both servers).
-- Each run starts from its own offset, so repeated runs insert, not overwrite.
local n = 0
init = function() n = 10000 + (os.time() % 100000) * 1000000 end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.PutItem"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"
wrk.headers["X-Amz-Date"] = "20261130T000000Z"
request = function()
  n = n + 1
  local body = string.format('{"TableName":"Telemetry","Item":{"vehicleId":{"S":"VEH#V-%04d"},"recordedAt":{"S":"TS#%015d"},"speedKph":{"N":"%d"},"coolantC":{"N":"91"},"fuelPct":{"N":"55"},"depotCode":{"S":"DEP-%02d"}}}', n % 2000, n, n % 130, n % 50)
  return wrk.format(nil, "/", nil, body)
end

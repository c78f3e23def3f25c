-- Query: the newest 20 readings of one vehicle, cycling through 2,000 vehicles.
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "DynamoDB_20120810.Query"
wrk.headers["Authorization"] = "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"
wrk.headers["X-Amz-Date"] = "20261130T000000Z"
request = function()
  n = n + 1
  local body = string.format('{"TableName":"Telemetry","KeyConditionExpression":"vehicleId = :v","ExpressionAttributeValues":{":v":{"S":"VEH#V-%04d"}},"ScanIndexForward":false,"Limit":20}', n % 2000)
  return wrk.format(nil, "/", nil, body)
end

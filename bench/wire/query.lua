-- Query: the newest 20 readings of one vehicle, cycling through 2,000 vehicles.
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("Query")
request = function()
  n = n + 1
  local body = string.format('{"TableName":"Telemetry","KeyConditionExpression":"vehicleId = :v","ExpressionAttributeValues":{":v":{"S":"VEH#V-%04d"}},"ScanIndexForward":false,"Limit":20}', n % 2000)
  return wrk.format(nil, "/", nil, body)
end

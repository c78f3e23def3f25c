-- The window Query: one vehicle's 20 newest readings (newest first).
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("Query")
init = function() math.randomseed(os.time() + id) n = math.random(2000) end
request = function()
  n = n + 1
  local body = string.format('{"TableName":"Telemetry","KeyConditionExpression":"vehicleId = :v AND recordedAt BETWEEN :a AND :b","ExpressionAttributeValues":{":v":{"S":"VEH#V-%04d"},":a":{"S":"TS#"},":b":{"S":"TS#999999999"}},"ScanIndexForward":false,"Limit":20}', n % 2000)
  return wrk.format(nil, "/", nil, body)
end

-- The GSI Query: the 20 newest readings of one depot (ByDepot, newest first).
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("Query")
init = function() math.randomseed(os.time() + id) n = math.random(50) end
request = function()
  n = n + 1
  local body = string.format('{"TableName":"Telemetry","IndexName":"ByDepot","KeyConditionExpression":"depotCode = :d","ExpressionAttributeValues":{":d":{"S":"DEP-%02d"}},"ScanIndexForward":false,"Limit":20}', n % 50)
  return wrk.format(nil, "/", nil, body)
end

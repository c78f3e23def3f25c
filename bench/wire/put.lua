-- PutItem of fleet readings, a new key per request (shared by both servers).
-- Each run starts from its own offset, so repeated runs insert, not overwrite.
local n = 0
init = function() n = 10000 + (os.time() % 100000) * 1000000 end
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("PutItem")
request = function()
  n = n + 1
  local body = string.format('{"TableName":"Telemetry","Item":{"vehicleId":{"S":"VEH#V-%04d"},"recordedAt":{"S":"TS#%015d"},"speedKph":{"N":"%d"},"coolantC":{"N":"91"},"fuelPct":{"N":"55"},"depotCode":{"S":"DEP-%02d"}}}', n % 2000, n, n % 130, n % 50)
  return wrk.format(nil, "/", nil, body)
end

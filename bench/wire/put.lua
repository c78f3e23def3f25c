-- PutItem of fleet readings, a new key per request: each wrk thread and run
-- starts from an offset of its own, so runs insert rather than overwrite.
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("PutItem")
init = function() n = (os.time() % 100000) * 1000000 + id * 100000000000 end
request = function()
  n = n + 1
  local body = string.format('{"TableName":"Telemetry","Item":{"vehicleId":{"S":"VEH#V-%04d"},"recordedAt":{"S":"TP#%015d"},"speedKph":{"N":"%d"},"coolantC":{"N":"91"},"fuelPct":{"N":"55"},"depotCode":{"S":"DEP-%02d"}}}', n % 2000, n, n % 130, n % 50)
  return wrk.format(nil, "/", nil, body)
end

-- The load: BatchWriteItem of 25 new readings per request.
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("BatchWriteItem")
init = function() n = (os.time() % 100000) * 1000000 + id * 100000000000 end
request = function()
  local puts = {}
  for i = 1, 25 do
    n = n + 1
    puts[i] = string.format('{"PutRequest":{"Item":{"vehicleId":{"S":"VEH#V-%04d"},"recordedAt":{"S":"TB#%015d"},"speedKph":{"N":"%d"},"coolantC":{"N":"91"},"fuelPct":{"N":"55"},"depotCode":{"S":"DEP-%02d"}}}}', n % 2000, n, n % 130, n % 50)
  end
  local body = '{"RequestItems":{"Telemetry":[' .. table.concat(puts, ",") .. ']}}'
  return wrk.format(nil, "/", nil, body)
end

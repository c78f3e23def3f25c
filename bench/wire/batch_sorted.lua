-- BatchWriteItem of 25 readings per request in the order a copy sends them
-- (bench/run_replicate.sh): consecutive readings of one vehicle, 200 per
-- vehicle, as a Scan of the fleet demo's table returns them, the same
-- attributes as the demo's readings.
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("BatchWriteItem")
init = function() n = id * 1000000000 end
request = function()
  local puts = {}
  for i = 1, 25 do
    n = n + 1
    local vehicle = math.floor(n / 200)
    puts[i] = string.format('{"PutRequest":{"Item":{"vehicleId":{"S":"VEH#V-%09d"},"recordedAt":{"S":"TS#2026-06-23T%09d"},"speedKph":{"N":"%d.%d"},"coolantC":{"N":"%d"},"fuelPct":{"N":"0.%02d"},"depotCode":{"S":"DEP-LON-%d"}}}}', vehicle, n % 200, 30 + n % 70, n % 10, 80 + n % 25, n % 100, vehicle % 5)
  end
  local body = '{"RequestItems":{"Telemetry":[' .. table.concat(puts, ",") .. ']}}'
  return wrk.format(nil, "/", nil, body)
end

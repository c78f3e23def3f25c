-- GetItem of the readings run.sh loads before the measured runs (ITEMS of
-- them, keys TS#000000001.., vehicle n % 2000).
local items = tonumber(os.getenv("ITEMS") or "100000")
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("GetItem")
init = function() math.randomseed(os.time() + id) n = math.random(items) end
request = function()
  n = n % items + 1
  local body = string.format('{"TableName":"Telemetry","Key":{"vehicleId":{"S":"VEH#V-%04d"},"recordedAt":{"S":"TS#%09d"}}}', n % 2000, n)
  return wrk.format(nil, "/", nil, body)
end
response = function(status, headers, body)
  -- A miss would be a cheaper request than the hit being measured.
  if status == 200 and not string.find(body, '"Item"', 1, true) then
    io.write("GetItem miss\n")
  end
end

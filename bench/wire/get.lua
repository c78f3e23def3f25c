-- GetItem of the 10,000 readings run.sh loads before the measured runs.
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("GetItem")
request = function()
  n = n % 10000 + 1
  local body = string.format('{"TableName":"Telemetry","Key":{"vehicleId":{"S":"VEH#V-%04d"},"recordedAt":{"S":"TS#%09d"}}}', n % 2000, n)
  return wrk.format(nil, "/", nil, body)
end
response = function(status, headers, body)
  -- A miss would be a cheaper request than the hit being measured.
  if status == 200 and not string.find(body, '"Item"', 1, true) then
    io.write("GetItem miss\n")
  end
end
